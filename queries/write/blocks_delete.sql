-- blocks_delete: drop the sample_blocks (migration 009) of every level that hold a ts in [$lo, $hi],
-- before blocks_insert writes them again from the samples.
-- Params:
--   $lo TIMESTAMP  earliest ts written
--   $hi TIMESTAMP  latest ts written
-- Grain: the DELETE's row count.
DELETE FROM sample_blocks
WHERE block_end >= block_end_of($lo, level_s) AND block_end <= block_end_of($hi, level_s)
  -- NOTE: constant bounds over every level, so DuckDB skips row groups outside them
  AND block_end >= block_end_of($lo, 60) AND block_end <= block_end_of($hi, 1800)
