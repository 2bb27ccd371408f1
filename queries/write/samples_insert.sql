-- samples_insert: add the batch's samples (`incoming_points`: idx, ts, value); a (series, ts)
-- already stored is kept as it was, so pulling the same window twice stores each sample once
-- (a pair repeated inside one batch is stored once, with one of its values).
-- NOTE: samples has no primary key (006_samples_unkeyed): this anti-join is what keeps a
-- (series, ts) unique, and it only reads stored samples inside the batch's time span.
-- Params:
--   $lo TIMESTAMP  the batch's earliest ts
--   $hi TIMESTAMP  the batch's latest ts (constants, so DuckDB skips stored row groups outside)
--   $shares_keys BOOLEAN  two incoming series have one series_key (only then can a pair repeat)
-- Grain: one row per series × ts.
INSERT INTO samples (series_id, ts, value)
WITH joined AS (
    SELECT s.series_id, p.ts, p.value
    FROM incoming_points p
    JOIN staged_series st ON st.idx = p.idx
    JOIN series s ON s.series_key = st.series_key
),
batch AS (
    SELECT * FROM joined WHERE NOT $shares_keys
    UNION ALL
    SELECT DISTINCT ON (series_id, ts) * FROM joined WHERE $shares_keys
),
stored AS (
    SELECT series_id, ts FROM samples
    WHERE ts BETWEEN $lo AND $hi
)
SELECT b.series_id, b.ts, b.value
FROM batch b
ANTI JOIN stored USING (series_id, ts)
