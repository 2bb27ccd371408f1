-- samples_new: the samples of a batch (`incoming_points`: series_id, ts, value) the store does not
-- hold yet, as the cursor's temp table new_points; a (series, ts) already stored is kept as it
-- was, so pulling the same window twice stores each sample once (a pair repeated inside one batch
-- is stored once, with one of its values).
-- NOTE: samples has no primary key (006_samples_unkeyed): this anti-join is what keeps a
-- (series, ts) unique, and it only reads stored samples inside the batch's time span.
-- Params:
--   $lo TIMESTAMP  the batch's earliest ts
--   $hi TIMESTAMP  the batch's latest ts (constants, so DuckDB skips stored row groups outside)
--   $shares_keys BOOLEAN  two incoming series have one series_key (only then can a pair repeat)
-- Grain: one row per new series × ts.
CREATE OR REPLACE TEMP TABLE new_points AS
WITH batch AS (
    SELECT series_id, ts, value FROM incoming_points WHERE NOT $shares_keys
    UNION ALL
    SELECT DISTINCT ON (series_id, ts) series_id, ts, value FROM incoming_points WHERE $shares_keys
),
stored AS (
    SELECT series_id, ts FROM samples
    WHERE ts BETWEEN $lo AND $hi
)
SELECT b.series_id, b.ts, b.value
FROM batch b
ANTI JOIN stored USING (series_id, ts)
