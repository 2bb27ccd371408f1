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
-- NaN and ±Inf samples are stored as sent but left out of every increase (window_increases pairs
-- the finite samples around them); num_skipped counts them, per window, so a chart can say so.
-- Grain: one row per ts × pod × tier ('*' = cluster); windows with no queries are left out.
-- Columns: ts TIMESTAMP, pod VARCHAR, tier VARCHAR, hit_rate DOUBLE, hit_tokens DOUBLE,
--          query_tokens DOUBLE, num_skipped BIGINT
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
),
name_lists AS (
    -- Each list's variants with their rank, as window_increases reads them (one per pod).
    SELECT 'gpu' AS tier, 1 AS list_id, unnest($gpu_hits) AS metric, generate_subscripts($gpu_hits, 1) AS name_rank
    UNION ALL SELECT 'gpu', 2, unnest($gpu_queries), generate_subscripts($gpu_queries, 1)
    UNION ALL SELECT 'offload', 3, unnest($offload_hits), generate_subscripts($offload_hits, 1)
    UNION ALL SELECT 'offload', 4, unnest($offload_queries), generate_subscripts($offload_queries, 1)
    UNION ALL SELECT 'lmcache', 5, unnest($lmcache_hits), generate_subscripts($lmcache_hits, 1)
    UNION ALL SELECT 'lmcache', 6, unnest($lmcache_queries), generate_subscripts($lmcache_queries, 1)
),
candidates AS (
    SELECT s.series_id, s.pod, n.tier, n.list_id, n.name_rank
    FROM series s
    JOIN name_lists n USING (metric)
    WHERE ($pod IS NULL OR s.pod = $pod) AND (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, s.pod))
),
chosen AS (
    SELECT * FROM candidates
    QUALIFY name_rank = min(name_rank) OVER (PARTITION BY pod, list_id)
),
skipped_points AS (
    SELECT c.pod, c.tier,
           CAST(ceil((epoch_us(x.ts) - epoch_us($start)) / ($step * 1e6)) AS BIGINT) AS k
    FROM samples x
    JOIN chosen c USING (series_id)
    -- NOTE: NOT isfinite(value), written as a range: DuckDB orders NaN above +Inf, so row
    -- groups whose min/max are finite are skipped unread (most hold no NaN or ±Inf at all).
    WHERE (x.value > 1.7976931348623157e308 OR x.value < -1.7976931348623157e308)
      AND x.ts > $start - to_microseconds(CAST($step * 1e6 AS BIGINT))
      AND x.ts <= $end
),
skipped_per_pod AS (
    SELECT $start + to_microseconds(CAST(k * $step * 1e6 AS BIGINT)) AS ts, pod, tier, count(*) AS num_skipped
    FROM skipped_points
    GROUP BY k, pod, tier
),
skipped AS (
    SELECT * FROM skipped_per_pod
    UNION ALL
    SELECT ts, '*', tier, sum(num_skipped) FROM skipped_per_pod WHERE $pod IS NULL GROUP BY ts, tier
)
SELECT c.ts, c.pod, c.tier, c.hit_tokens / c.query_tokens AS hit_rate, c.hit_tokens, c.query_tokens,
       CAST(coalesce(k.num_skipped, 0) AS BIGINT) AS num_skipped
FROM combined c
LEFT JOIN skipped k ON k.ts = c.ts AND k.pod IS NOT DISTINCT FROM c.pod AND k.tier = c.tier
WHERE c.query_tokens > 0
ORDER BY c.ts, c.tier, c.pod
