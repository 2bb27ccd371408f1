-- overview_connector_health: the KV connector's own health per window over the selected pods: offload-tier
-- lookup delay (mean seconds per sync/async lookup, from the histograms' _sum/_count), allocation
-- failures and skipped stores per second (vLLM's OffloadingConnector), and LMCache's lookup,
-- lookup-hit and stored tokens per second and CPU-tier evictions per second.
-- Params:
--   $start TIMESTAMP  first row's ts
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  window length and row spacing, seconds
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
--   $sync_delay VARCHAR[]  catalog:kv_offload_lookup_sync_delay
--   $async_delay VARCHAR[]  catalog:kv_offload_lookup_async_delay
--   $alloc_failures VARCHAR[]  catalog:kv_offload_allocation_failures
--   $stores_skipped VARCHAR[]  catalog:kv_offload_stores_skipped
--   $lookup_tokens VARCHAR[]  catalog:lmcache_lookup_tokens
--   $lookup_hits VARCHAR[]  catalog:lmcache_lookup_hits
--   $stored_tokens VARCHAR[]  catalog:lmcache_stored_tokens
--   $evictions VARCHAR[]  catalog:lmcache_cpu_evictions
-- Grain: one row per ts × series; unit 's' (mean delay) or 'per_s' (rate).
-- Columns: ts TIMESTAMP, series VARCHAR, unit VARCHAR, value DOUBLE
WITH delays AS (
    -- NOTE: one window_increases call per name list: it keeps one name variant per pod.
    SELECT ts, pod, 'offload lookup delay (sync)' AS series, increase AS total, 0.0 AS num
    FROM window_increases(list_transform($sync_delay, lambda n: replace(n, '_bucket', '_sum')), $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'offload lookup delay (sync)', 0.0, increase
    FROM window_increases(list_transform($sync_delay, lambda n: replace(n, '_bucket', '_count')), $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'offload lookup delay (async)', increase, 0.0
    FROM window_increases(list_transform($async_delay, lambda n: replace(n, '_bucket', '_sum')), $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'offload lookup delay (async)', 0.0, increase
    FROM window_increases(list_transform($async_delay, lambda n: replace(n, '_bucket', '_count')), $start, $end, $step)
),
rates AS (
    SELECT ts, pod, 'offload allocation failures' AS series, increase FROM window_increases($alloc_failures, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'offload stores skipped', increase FROM window_increases($stores_skipped, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'LMCache lookup tokens', increase FROM window_increases($lookup_tokens, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'LMCache lookup hit tokens', increase FROM window_increases($lookup_hits, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'LMCache stored tokens', increase FROM window_increases($stored_tokens, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'LMCache CPU evictions', increase FROM window_increases($evictions, $start, $end, $step)
),
mean_delays AS (
    SELECT ts, series, 's' AS unit, sum(total) / sum(num) AS value
    FROM delays WHERE (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
    GROUP BY ts, series HAVING sum(num) > 0
),
per_s AS (
    SELECT ts, series, 'per_s' AS unit, sum(increase) / $step AS value FROM rates
    WHERE (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
    GROUP BY ts, series
)
SELECT ts, series, unit, value FROM (SELECT * FROM mean_delays UNION ALL SELECT * FROM per_s)
ORDER BY ts, series
