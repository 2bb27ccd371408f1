-- stack_cache_config: each pod's newest vllm:cache_config_info labels that say whether KV offload
-- is configured (kv_offloading_size set; kv_offloading_backend alone defaults to 'native').
-- Params:
--   $cache_info VARCHAR[]  catalog:cache_config_info
-- Grain: one row per pod.
-- Columns: pod VARCHAR, kv_offloading_backend VARCHAR, kv_offloading_size VARCHAR
WITH newest AS (
    SELECT s.pod, s.labels, t.last_ts
    FROM series s JOIN series_last_ts($cache_info) t USING (series_id)
),
per_pod AS (
    SELECT pod, arg_max(labels, last_ts) AS labels FROM newest GROUP BY pod
)
SELECT pod,
       labels['kv_offloading_backend'] AS kv_offloading_backend,
       labels['kv_offloading_size'] AS kv_offloading_size
FROM per_pod
ORDER BY pod
