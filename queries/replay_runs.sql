-- replay_runs: saved replays, newest first, for the what-if page's run list and comparisons.
-- Params:
--   $sweep VARCHAR  optional: only the runs of this sweep (NULL = every run)
-- Grain: one row per run.
-- Columns: run_id BIGINT, name VARCHAR, sweep VARCHAR, created_at TIMESTAMP, trace VARCHAR,
--          num_pods INTEGER, router VARCHAR, policy VARCHAR, hbm_blocks BIGINT, cpu_blocks BIGINT,
--          disk_blocks BIGINT, requests BIGINT, block_hit_ratio DOUBLE, token_hit_ratio DOUBLE,
--          ttft_p50_s DOUBLE, ttft_p90_s DOUBLE, ttft_p99_s DOUBLE, load_imbalance DOUBLE, elapsed_s DOUBLE
SELECT run_id, name, sweep, created_at, trace, num_pods, router, policy, hbm_blocks, cpu_blocks, disk_blocks,
       requests, block_hit_ratio, token_hit_ratio, ttft_p50_s, ttft_p90_s, ttft_p99_s, load_imbalance, elapsed_s
FROM replay_runs
WHERE CAST($sweep AS VARCHAR) IS NULL OR sweep = $sweep
ORDER BY created_at DESC, run_id DESC
