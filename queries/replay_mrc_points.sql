-- replay_mrc_points: the saved hit-ratio curve(s) of one run, by capacity.
-- Params:
--   $run_id BIGINT  the run
-- Grain: one row per policy × capacity.
-- Columns: policy VARCHAR, capacity_blocks BIGINT, block_hit_ratio DOUBLE, token_hit_ratio DOUBLE
SELECT policy, capacity_blocks, block_hit_ratio, token_hit_ratio
FROM replay_mrc
WHERE run_id = $run_id
ORDER BY policy, capacity_blocks
