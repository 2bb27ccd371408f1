-- scrape_interval: the observed scrape interval, the median gap between consecutive samples of the
-- engines' prefix-cache query counter (every vLLM pod exports it), so rate windows can be sized to
-- the data (a window under two intervals holds fewer than two samples and has no answer).
-- Params:
--   $names VARCHAR[]  catalog:prefix_cache_queries
--   $start TIMESTAMP  optional: only samples after this (NULL = from the first)
--   $end TIMESTAMP  optional: only samples at or before this (NULL = to the last)
-- Grain: one row; scrape_interval_s is NULL when no series has two samples in the range.
-- Columns: scrape_interval_s DOUBLE, num_gaps BIGINT
WITH chosen AS (
    SELECT series_id FROM series WHERE list_contains($names, metric)
),
gaps AS (
    SELECT epoch_us(ts) - lag(epoch_us(ts)) OVER (PARTITION BY series_id ORDER BY ts) AS gap_us
    FROM samples
    JOIN chosen USING (series_id)
    WHERE ($start IS NULL OR ts > $start) AND ($end IS NULL OR ts <= $end)
)
SELECT median(gap_us) / 1e6 AS scrape_interval_s, count(gap_us) AS num_gaps
FROM gaps
WHERE gap_us IS NOT NULL
