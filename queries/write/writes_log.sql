-- writes_log: record one write that stored new samples (sample_writes, migration 009).
-- Params:
--   $lo TIMESTAMP  earliest ts stored
--   $hi TIMESTAMP  latest ts stored
--   $num_samples BIGINT  samples stored
--   $num_new_series BIGINT  series registered by the write
-- Grain: one row.
INSERT INTO sample_writes (lo, hi, num_samples, num_new_series)
VALUES ($lo, $hi, $num_samples, $num_new_series)
