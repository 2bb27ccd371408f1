-- blocks_insert: compute the sample_blocks (migration 009) of every level that hold a ts in
-- [$lo, $hi] from the stored samples (after blocks_delete dropped the old ones). A block depends
-- on its own samples only, so no other block changes.
-- Params:
--   $lo TIMESTAMP  earliest ts written
--   $hi TIMESTAMP  latest ts written
-- Grain: one row per level × series × block; the INSERT's row count.
INSERT INTO sample_blocks
SELECT *
FROM block_rows(block_end_of($lo, 1800) - INTERVAL 1800 SECOND, block_end_of($hi, 1800))
WHERE block_end >= block_end_of($lo, level_s) AND block_end <= block_end_of($hi, level_s)
ORDER BY level_s, block_end, series_id
