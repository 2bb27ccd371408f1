-- overview_offload_traffic: KV bytes per second moved between GPU and the offload tier per pod:
-- 'store' = GPU→tier (vllm:kv_offload_store_bytes_total), 'load' = tier→GPU (…load_bytes_total),
-- as window increases divided by the window length. Pods that export only the older
-- vllm:kv_offload_total_bytes_total (vLLM 0.12–0.25, llm-d fs backend) are read from it by its
-- transfer_type label (GPU_to_* = store, *_to_GPU = load); pods exporting both are read from the
-- flat names only, never both (vLLM 0.34 emits both side by side).
-- Params:
--   $start TIMESTAMP  first row's ts
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  window length and row spacing, seconds
--   $store_names VARCHAR[]  catalog:kv_offload_store_bytes
--   $load_names VARCHAR[]  catalog:kv_offload_load_bytes
--   $transfer_names VARCHAR[]  catalog:kv_offload_transfer_bytes
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
-- Grain: one row per ts × pod × direction.
-- Columns: ts TIMESTAMP, pod VARCHAR, direction VARCHAR, bytes_per_s DOUBLE
WITH flat AS (
    SELECT ts, pod, 'store' AS direction, increase FROM window_increases($store_names, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'load', increase FROM window_increases($load_names, $start, $end, $step)
),
flat_pods AS (
    SELECT DISTINCT pod FROM series WHERE list_contains($store_names, metric) OR list_contains($load_names, metric)
),
legacy AS (
    SELECT ts, pod,
           CASE WHEN starts_with(labels['transfer_type'], 'GPU_to_') THEN 'store'
                WHEN ends_with(labels['transfer_type'], '_to_GPU') THEN 'load' END AS direction,
           increase
    FROM window_increases($transfer_names, $start, $end, $step)
    WHERE pod NOT IN (SELECT pod FROM flat_pods)
),
moved AS (
    SELECT * FROM flat
    UNION ALL
    SELECT * FROM legacy WHERE direction IS NOT NULL
)
SELECT ts, pod, direction, sum(increase) / $step AS bytes_per_s
FROM moved
WHERE (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
GROUP BY ts, pod, direction
ORDER BY ts, pod, direction
