-- time_bounds: the time span the stored samples cover.
-- Params: none.
-- Grain: one row.
-- Columns: first_ts TIMESTAMP, last_ts TIMESTAMP, num_samples BIGINT, num_series BIGINT
-- NOTE: sample_bounds() reads the 30-minute sample blocks (migration 010), not every sample.
SELECT first_ts, last_ts, num_samples, num_series
FROM sample_bounds()
