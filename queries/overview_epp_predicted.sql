-- overview_epp_predicted: the EPP's predicted prefix hit rate beside what the engines delivered,
-- cluster-wide per window. predicted = increase(llm_d_epp_prefix_predicted_cached_tokens_sum) /
-- increase(llm_d_epp_prefix_prompt_tokens_sum) (the llm-d kv-cache dashboard's formula);
-- delivered = increase(GPU hits + connector hits) / increase(GPU queries), the tokens the engines
-- did not recompute. A predicted line above the delivered one means the router's index is stale.
-- Params:
--   $start TIMESTAMP  first row's ts
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  window length and row spacing, seconds
--   $predicted_names VARCHAR[]  catalog:epp_prefix_predicted_cached_tokens
--   $prompt_names VARCHAR[]  catalog:epp_prefix_prompt_tokens
--   $gpu_hits VARCHAR[]  catalog:prefix_cache_hits
--   $gpu_queries VARCHAR[]  catalog:prefix_cache_queries
--   $external_hits VARCHAR[]  catalog:external_prefix_cache_hits
-- Grain: one row per ts × series ('predicted' or 'delivered'), windows with tokens only.
-- Columns: ts TIMESTAMP, series VARCHAR, hit_rate DOUBLE
WITH tokens AS (
    -- NOTE: the catalog names a histogram by its _bucket series; the prediction is in its _sum.
    SELECT ts, 'predicted' AS series, increase AS hit, 0.0 AS total
    FROM window_increases(list_transform($predicted_names, lambda n: replace(n, '_bucket', '_sum')), $start, $end, $step)
    UNION ALL
    SELECT ts, 'predicted', 0.0, increase
    FROM window_increases(list_transform($prompt_names, lambda n: replace(n, '_bucket', '_sum')), $start, $end, $step)
    UNION ALL
    SELECT ts, 'delivered', increase, 0.0 FROM window_increases($gpu_hits, $start, $end, $step)
    UNION ALL
    SELECT ts, 'delivered', increase, 0.0 FROM window_increases($external_hits, $start, $end, $step)
    UNION ALL
    SELECT ts, 'delivered', 0.0, increase FROM window_increases($gpu_queries, $start, $end, $step)
),
per_window AS (
    SELECT ts, series, sum(hit) AS hit, sum(total) AS total FROM tokens GROUP BY ts, series
)
SELECT ts, series, hit / total AS hit_rate
FROM per_window
WHERE total > 0 AND ts IN (SELECT ts FROM per_window WHERE series = 'predicted' AND total > 0)
ORDER BY ts, series
