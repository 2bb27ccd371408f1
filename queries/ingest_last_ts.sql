-- ingest_last_ts: the newest stored sample time of the given metric names (where a pull resumes).
-- Params:
--   $names VARCHAR[]  exact sample names to look at
-- Grain: one row.
-- Columns: last_ts TIMESTAMP (NULL when nothing is stored yet)
SELECT max(last_ts) AS last_ts
FROM series_last_ts($names)
