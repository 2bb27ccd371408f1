-- overview_tier_occupancy: KV bytes resident in each pod's offload tiers (the last sample per
-- window of LMCache's lmcache:local_cache_usage = CPU DRAM and lmcache:local_storage_usage =
-- local disk). NOTE: vLLM's native OffloadingConnector exports no resident-bytes gauge, so
-- stacks without LMCache have no rows here.
-- Params:
--   $start TIMESTAMP  first row's ts
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  row spacing, seconds
--   $cpu_names VARCHAR[]  catalog:lmcache_cpu_usage
--   $disk_names VARCHAR[]  catalog:lmcache_disk_usage
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
-- Grain: one row per ts × pod × tier.
-- Columns: ts TIMESTAMP, pod VARCHAR, tier VARCHAR, resident_bytes DOUBLE
WITH resident AS (
    SELECT ts, pod, 'cpu' AS tier, value FROM window_last($cpu_names, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'disk', value FROM window_last($disk_names, $start, $end, $step)
)
-- NOTE: LMCache workers of one pod each export a series (label worker_id); the pod holds their sum.
SELECT ts, pod, tier, sum(value) AS resident_bytes
FROM resident
WHERE (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
GROUP BY ts, pod, tier
ORDER BY ts, pod, tier
