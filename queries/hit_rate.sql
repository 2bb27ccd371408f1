-- hit_rate: token-weighted prefix-cache hit rate per window, cluster-wide and per pod, by tier.
-- hit_rate = increase(hits) / increase(queries) over (ts − step, ts], summed over pods before
-- dividing (never an average of per-pod ratios); with $pods the '*' row totals those pods. tier 'gpu' is vLLM's local prefix cache
-- (vllm:prefix_cache_*), tier 'offload' the KV-connector tier (vllm:external_prefix_cache_*) and
-- tier 'lmcache' LMCache's own retrieve counters (lmcache:num_hit/requested_tokens, in whole
-- 256-token chunks, so it differs from vLLM's view of the same connector).
-- Params:
--   $start TIMESTAMP  first row's ts (ISO-8601 or epoch seconds, UTC)
--   $end TIMESTAMP  last row is at or before this
--   $step DOUBLE  window length and row spacing, seconds
--   $pod VARCHAR  optional: one pod only (NULL = every pod, plus the cluster row)
--   $gpu_hits VARCHAR[]  catalog:prefix_cache_hits
--   $gpu_queries VARCHAR[]  catalog:prefix_cache_queries
--   $offload_hits VARCHAR[]  catalog:external_prefix_cache_hits
--   $offload_queries VARCHAR[]  catalog:external_prefix_cache_queries
--   $lmcache_hits VARCHAR[]  catalog:lmcache_hit_tokens
--   $lmcache_queries VARCHAR[]  catalog:lmcache_requested_tokens
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
-- Grain: one row per ts × pod × tier ('*' = cluster); windows with no queries are left out.
-- Columns: ts TIMESTAMP, pod VARCHAR, tier VARCHAR, hit_rate DOUBLE, hit_tokens DOUBLE,
--          query_tokens DOUBLE
WITH increases AS (
    SELECT ts, pod, 'gpu' AS tier, increase AS hits, 0.0 AS queries
    FROM window_increases($gpu_hits, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'gpu', 0.0, increase FROM window_increases($gpu_queries, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'offload', increase, 0.0 FROM window_increases($offload_hits, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'offload', 0.0, increase FROM window_increases($offload_queries, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'lmcache', increase, 0.0 FROM window_increases($lmcache_hits, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'lmcache', 0.0, increase FROM window_increases($lmcache_queries, $start, $end, $step)
),
selected AS (
    SELECT * FROM increases WHERE ($pod IS NULL OR pod = $pod) AND (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
),
per_pod AS (
    SELECT ts, pod, tier, sum(hits) AS hit_tokens, sum(queries) AS query_tokens
    FROM selected
    GROUP BY ts, pod, tier
),
cluster AS (
    SELECT ts, '*' AS pod, tier, sum(hit_tokens) AS hit_tokens, sum(query_tokens) AS query_tokens
    FROM per_pod
    WHERE $pod IS NULL
    GROUP BY ts, tier
),
combined AS (
    SELECT * FROM per_pod
    UNION ALL
    SELECT * FROM cluster
)
SELECT ts, pod, tier, hit_tokens / query_tokens AS hit_rate, hit_tokens, query_tokens
FROM combined
WHERE query_tokens > 0
ORDER BY ts, tier, pod
