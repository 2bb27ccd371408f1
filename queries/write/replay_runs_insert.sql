-- replay_runs_insert: save one replay's config and summary; returns its run_id.
-- Params:
--   $run_name VARCHAR  run name (unique by convention; the service deletes an older run of that name first)
--   $sweep VARCHAR  optional: sweep the run belongs to
--   $created_at TIMESTAMP  when it was saved (UTC)
--   $trace VARCHAR  trace file or stored trace name
--   $num_pods INTEGER  pods
--   $router VARCHAR  router name
--   $policy VARCHAR  eviction policy of every tier
--   $hbm_blocks BIGINT  HBM blocks per pod
--   $cpu_blocks BIGINT  CPU DRAM blocks per pod (0 = none)
--   $disk_blocks BIGINT  disk blocks per pod (0 = none)
--   $requests BIGINT  requests replayed
--   $block_accesses BIGINT  blocks over all requests
--   $block_hits BIGINT  prefix-hit blocks over all tiers
--   $block_hit_ratio DOUBLE  block_hits / block_accesses
--   $token_hit_ratio DOUBLE  cached tokens / input tokens
--   $ttft_p50_s DOUBLE  optional: TTFT median, seconds
--   $ttft_p90_s DOUBLE  optional: TTFT p90, seconds
--   $ttft_p99_s DOUBLE  optional: TTFT p99, seconds
--   $load_imbalance DOUBLE  optional: max / mean requests per pod
--   $elapsed_s DOUBLE  optional: engine seconds
--   $config_json VARCHAR  the ReplayRequest as JSON
--   $summary_json VARCHAR  ReplaySummary.to_dict() as JSON
-- Grain: one row per run. Columns returned: run_id BIGINT
INSERT INTO replay_runs (name, sweep, created_at, trace, num_pods, router, policy, hbm_blocks, cpu_blocks,
                         disk_blocks, requests, block_accesses, block_hits, block_hit_ratio, token_hit_ratio,
                         ttft_p50_s, ttft_p90_s, ttft_p99_s, load_imbalance, elapsed_s, config_json, summary_json)
VALUES ($run_name, $sweep, $created_at, $trace, $num_pods, $router, $policy, $hbm_blocks, $cpu_blocks, $disk_blocks,
        $requests, $block_accesses, $block_hits, $block_hit_ratio, $token_hit_ratio, $ttft_p50_s, $ttft_p90_s,
        $ttft_p99_s, $load_imbalance, $elapsed_s, $config_json, $summary_json)
RETURNING run_id
