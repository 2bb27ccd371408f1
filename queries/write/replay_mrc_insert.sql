-- replay_mrc_insert: save one hit-ratio curve of a run, one row per capacity point.
-- Params:
--   $run_id BIGINT  the run the curve belongs to
--   $policy VARCHAR  the policy the curve is for
--   $capacity_blocks BIGINT[]  capacities, blocks
--   $block_hit_ratio DOUBLE[]  block hit ratio at each capacity
--   $token_hit_ratio DOUBLE[]  token hit ratio at each capacity
-- Grain: one row per run × policy × capacity.
INSERT INTO replay_mrc
SELECT $run_id, $policy, c, b, t
FROM (SELECT unnest($capacity_blocks) AS c, unnest($block_hit_ratio) AS b, unnest($token_hit_ratio) AS t)
