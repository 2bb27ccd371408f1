-- time_bounds: the time span the stored samples cover.
-- Params: none.
-- Grain: one row.
-- Columns: first_ts TIMESTAMP, last_ts TIMESTAMP, num_samples BIGINT, num_series BIGINT
SELECT min(ts) AS first_ts, max(ts) AS last_ts, count(*) AS num_samples,
       count(DISTINCT series_id) AS num_series
FROM samples
