-- overview_range_pieces: what the Overview's headline and TTFT distribution are computed from, per
-- series over (start, end]: the prefix-cache hit and query counters of every tier and vLLM's TTFT
-- buckets, each as range_pieces gives them (011_range_pieces.sql), so the pieces of (a, b] and
-- (b, c] join into those of (a, c] (services/range_totals.py) and a tick reads only the newest part.
-- Params:
--   $start TIMESTAMP  range start (exclusive)
--   $end TIMESTAMP  range end (inclusive)
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
--   $gpu_hits VARCHAR[]  catalog:prefix_cache_hits
--   $gpu_queries VARCHAR[]  catalog:prefix_cache_queries
--   $offload_hits VARCHAR[]  catalog:external_prefix_cache_hits
--   $offload_queries VARCHAR[]  catalog:external_prefix_cache_queries
--   $lmcache_hits VARCHAR[]  catalog:lmcache_hit_tokens
--   $lmcache_queries VARCHAR[]  catalog:lmcache_requested_tokens
--   $bucket_names VARCHAR[]  catalog:ttft_seconds
-- Grain: one row per series with a sample in the range (each pod's newest name variant per list);
-- kind is 'hits', 'queries' (tier 'gpu', 'offload' or 'lmcache', le NULL) or 'ttft_bucket' (tier
-- NULL, le its bucket bound; the _sum and _count series are left out).
-- Columns: series_id BIGINT, pod VARCHAR, kind VARCHAR, tier VARCHAR, le DOUBLE, increase DOUBLE,
--          first_finite DOUBLE, last_finite DOUBLE, num_finite BIGINT, num_skipped BIGINT
WITH kinds (list_id, kind, tier) AS (
    VALUES (1, 'hits', 'gpu'), (2, 'queries', 'gpu'), (3, 'hits', 'offload'), (4, 'queries', 'offload'),
           (5, 'hits', 'lmcache'), (6, 'queries', 'lmcache'), (7, 'ttft_bucket', NULL)
),
pieces AS (
    SELECT *
    FROM range_pieces(
        [$gpu_hits, $gpu_queries, $offload_hits, $offload_queries, $lmcache_hits, $lmcache_queries, $bucket_names],
        $start, $end)
)
SELECT p.series_id, p.pod, k.kind, k.tier, p.le, p.increase, p.first_finite, p.last_finite, p.num_finite,
       p.num_skipped
FROM pieces p
JOIN kinds k USING (list_id)
WHERE (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, p.pod))
  AND (k.kind = 'ttft_bucket') = (p.le IS NOT NULL)
ORDER BY p.series_id
