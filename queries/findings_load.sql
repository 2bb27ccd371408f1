-- findings_load: the cluster's load and KV pressure per window, the evidence a finding compares
-- before and after its change point: finished requests, prompt tokens, preemptions (increases
-- summed over pods) and the fullest pod's GPU KV usage (last sample per window).
-- Params:
--   $start TIMESTAMP  first row's ts
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  window length and row spacing, seconds
--   $request_names VARCHAR[]  catalog:request_success
--   $prompt_names VARCHAR[]  catalog:prompt_tokens
--   $preemption_names VARCHAR[]  catalog:num_preemptions
--   $usage_names VARCHAR[]  catalog:kv_cache_usage
-- Grain: one row per ts (windows where a pod reported its KV usage).
-- Columns: ts TIMESTAMP, num_requests DOUBLE, prompt_tokens DOUBLE, num_preemptions DOUBLE,
--          max_kv_usage DOUBLE
WITH counters AS (
    SELECT ts, increase AS num_requests, 0.0 AS prompt_tokens, 0.0 AS num_preemptions
    FROM window_increases($request_names, $start, $end, $step)
    UNION ALL
    SELECT ts, 0.0, increase, 0.0 FROM window_increases($prompt_names, $start, $end, $step)
    UNION ALL
    SELECT ts, 0.0, 0.0, increase FROM window_increases($preemption_names, $start, $end, $step)
),
per_window AS (
    SELECT ts, sum(num_requests) AS num_requests, sum(prompt_tokens) AS prompt_tokens,
           sum(num_preemptions) AS num_preemptions
    FROM counters
    GROUP BY ts
),
usage AS (
    SELECT ts, max(value) AS max_kv_usage FROM window_last($usage_names, $start, $end, $step) GROUP BY ts
)
SELECT u.ts, coalesce(p.num_requests, 0.0) AS num_requests, coalesce(p.prompt_tokens, 0.0) AS prompt_tokens,
       coalesce(p.num_preemptions, 0.0) AS num_preemptions, u.max_kv_usage
FROM usage u
LEFT JOIN per_window p USING (ts)
ORDER BY u.ts
