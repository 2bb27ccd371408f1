-- samples_new_span: the time span and number of the cursor's new_points (samples_new).
-- Params: none.
-- Grain: one row.
-- Columns: lo TIMESTAMP, hi TIMESTAMP, num_samples BIGINT
SELECT min(ts) AS lo, max(ts) AS hi, count(*) AS num_samples FROM new_points
