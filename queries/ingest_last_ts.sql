-- ingest_last_ts: the newest stored sample time of the given metric names (where a pull resumes).
-- Params:
--   $names VARCHAR[]  exact sample names to look at
-- Grain: one row.
-- Columns: last_ts TIMESTAMP (NULL when nothing is stored yet)
SELECT max(x.ts) AS last_ts
FROM samples x
JOIN series s USING (series_id)
WHERE list_contains($names, s.metric)
