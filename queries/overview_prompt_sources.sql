-- overview_prompt_sources: where prompt tokens' KV came from per window over the selected pods: computed,
-- local (GPU) cache hit or external transfer (vllm:prompt_tokens_by_source_total, label source),
-- and the cached tokens by the tier that supplied them (vllm:prompt_tokens_cached_by_source_total:
-- device, host, disk, p2p, external_unspecified). Rates are window increases / step.
-- Params:
--   $start TIMESTAMP  first row's ts
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  window length and row spacing, seconds
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
--   $source_names VARCHAR[]  catalog:prompt_tokens_by_source
--   $tier_names VARCHAR[]  catalog:prompt_tokens_cached_by_source
-- Grain: one row per ts × kind × source; kind 'source' (every prompt token) or 'tier' (cached ones).
-- Columns: ts TIMESTAMP, kind VARCHAR, source VARCHAR, tokens DOUBLE, tokens_per_s DOUBLE
WITH moved AS (
    SELECT ts, pod, 'source' AS kind, labels['source'] AS source, increase
    FROM window_increases($source_names, $start, $end, $step)
    UNION ALL
    SELECT ts, pod, 'tier', labels['source'], increase FROM window_increases($tier_names, $start, $end, $step)
)
SELECT ts, kind, source, sum(increase) AS tokens, sum(increase) / $step AS tokens_per_s
FROM moved
WHERE source IS NOT NULL AND (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
GROUP BY ts, kind, source
ORDER BY ts, kind, source
