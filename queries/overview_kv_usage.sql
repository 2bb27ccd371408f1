-- overview_kv_usage: share of each pod's GPU KV blocks held by running requests (the last
-- vllm:kv_cache_usage_perc sample per window). NOTE: evictable cached blocks count as free, so
-- this is the active working set, not how much prefix cache the pod holds.
-- Params:
--   $start TIMESTAMP  first row's ts
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  row spacing, seconds
--   $names VARCHAR[]  catalog:kv_cache_usage
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
-- Grain: one row per ts × pod.
-- Columns: ts TIMESTAMP, pod VARCHAR, usage_ratio DOUBLE
SELECT ts, pod, value AS usage_ratio
FROM window_last($names, $start, $end, $step)
WHERE (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
ORDER BY ts, pod
