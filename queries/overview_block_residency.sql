-- overview_block_residency: how long GPU KV blocks live, from vLLM's --kv-cache-metrics histograms
-- over the range: mean block lifetime, mean idle time of an evicted block before its eviction, and
-- mean reuse gap between two uses of a block (each _sum increase / _count increase, summed over
-- the selected pods). A reuse gap longer than the idle time before eviction means blocks are evicted before
-- they would have been reused.
-- Params:
--   $start TIMESTAMP  row ts (the window ends here; use start = end with step = range length)
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  window length, seconds
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
--   $lifetime_names VARCHAR[]  catalog:kv_block_lifetime
--   $idle_names VARCHAR[]  catalog:kv_block_idle_before_evict
--   $gap_names VARCHAR[]  catalog:kv_block_reuse_gap
-- Grain: one row per ts × measure (lifetime, idle_before_evict, reuse_gap) with observations.
-- Columns: ts TIMESTAMP, measure VARCHAR, num_observations DOUBLE, mean_s DOUBLE
WITH moved AS (
    -- NOTE: the catalog names a histogram by its _bucket series; means come from _sum and _count
    -- (one window_increases call each: it keeps one name variant per pod).
    SELECT ts, pod, 'lifetime' AS measure, increase AS total_s, 0.0 AS num_observations
    FROM window_increases(list_transform($lifetime_names, lambda n: replace(n, '_bucket', '_sum')), $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'lifetime' AS measure, 0.0 AS total_s, increase AS num_observations
    FROM window_increases(list_transform($lifetime_names, lambda n: replace(n, '_bucket', '_count')), $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'idle_before_evict' AS measure, increase AS total_s, 0.0 AS num_observations
    FROM window_increases(list_transform($idle_names, lambda n: replace(n, '_bucket', '_sum')), $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'idle_before_evict' AS measure, 0.0 AS total_s, increase AS num_observations
    FROM window_increases(list_transform($idle_names, lambda n: replace(n, '_bucket', '_count')), $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'reuse_gap' AS measure, increase AS total_s, 0.0 AS num_observations
    FROM window_increases(list_transform($gap_names, lambda n: replace(n, '_bucket', '_sum')), $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'reuse_gap' AS measure, 0.0 AS total_s, increase AS num_observations
    FROM window_increases(list_transform($gap_names, lambda n: replace(n, '_bucket', '_count')), $start, $end, $step)
),
per_measure AS (
    SELECT ts, measure, sum(num_observations) AS num_observations, sum(total_s) AS total_s
    FROM moved
    WHERE (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
    GROUP BY ts, measure
)
SELECT ts, measure, num_observations, total_s / num_observations AS mean_s
FROM per_measure
WHERE num_observations > 0
ORDER BY ts, measure
