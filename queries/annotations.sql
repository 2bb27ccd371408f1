-- annotations: events to mark on time charts (deploys, routing changes, restarts, bursts).
-- Params:
--   $start TIMESTAMP  range start (inclusive)
--   $end TIMESTAMP  range end (inclusive)
-- Grain: one row per annotation.
-- Columns: ts TIMESTAMP, kind VARCHAR, text VARCHAR
SELECT ts, kind, text
FROM annotations
WHERE ts BETWEEN $start AND $end
ORDER BY ts
