-- overview_offload_traffic: KV bytes per second moved between GPU and the offload tier per pod:
-- 'store' = GPU→tier (vllm:kv_offload_store_bytes_total), 'load' = tier→GPU (…load_bytes_total),
-- as window increases divided by the window length.
-- Params:
--   $start TIMESTAMP  first row's ts
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  window length and row spacing, seconds
--   $store_names VARCHAR[]  catalog:kv_offload_store_bytes
--   $load_names VARCHAR[]  catalog:kv_offload_load_bytes
-- Grain: one row per ts × pod × direction.
-- Columns: ts TIMESTAMP, pod VARCHAR, direction VARCHAR, bytes_per_s DOUBLE
WITH moved AS (
    SELECT ts, pod, 'store' AS direction, increase FROM window_increases($store_names, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'load', increase FROM window_increases($load_names, $start, $end, $step)
)
SELECT ts, pod, direction, sum(increase) / $step AS bytes_per_s
FROM moved
GROUP BY ts, pod, direction
ORDER BY ts, pod, direction
