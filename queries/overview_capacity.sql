-- overview_capacity: each pod's configured KV capacity, from the newest info-metric labels:
-- GPU = num_gpu_blocks × block_size tokens (vllm:cache_config_info), CPU offload tier from
-- vllm:kv_offload_config_info (NULL when the pod runs no OffloadingConnector).
-- Params:
--   $gpu_info VARCHAR[]  catalog:cache_config_info
--   $cpu_info VARCHAR[]  catalog:kv_offload_config_info
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
-- Grain: one row per pod.
-- Columns: pod VARCHAR, block_size BIGINT, num_gpu_blocks BIGINT, gpu_capacity_tokens BIGINT,
--          cpu_capacity_tokens BIGINT, cpu_capacity_bytes BIGINT
WITH newest AS (
    SELECT s.pod, s.metric, s.labels, t.last_ts
    FROM series s JOIN series_last_ts(list_concat($gpu_info, $cpu_info)) t USING (series_id)
),
gpu AS (
    SELECT pod, arg_max(labels, last_ts) AS labels FROM newest
    WHERE list_contains($gpu_info, metric) GROUP BY pod
),
cpu AS (
    SELECT pod, arg_max(labels, last_ts) AS labels FROM newest
    WHERE list_contains($cpu_info, metric) GROUP BY pod
)
SELECT g.pod,
       TRY_CAST(g.labels['block_size'] AS BIGINT) AS block_size,
       TRY_CAST(g.labels['num_gpu_blocks'] AS BIGINT) AS num_gpu_blocks,
       TRY_CAST(g.labels['num_gpu_blocks'] AS BIGINT) * TRY_CAST(g.labels['block_size'] AS BIGINT)
           AS gpu_capacity_tokens,
       TRY_CAST(c.labels['cpu_kv_cache_size_tokens'] AS BIGINT) AS cpu_capacity_tokens,
       TRY_CAST(c.labels['cpu_kv_cache_size_bytes'] AS BIGINT) AS cpu_capacity_bytes
FROM gpu g
LEFT JOIN cpu c USING (pod)
WHERE (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, g.pod))
ORDER BY g.pod
