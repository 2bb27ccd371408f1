-- scrape_interval: the observed scrape interval, the median gap between consecutive samples of the
-- engines' prefix-cache query counter (every vLLM pod exports it), so rate windows can be sized to
-- the data (a window under two intervals holds fewer than two samples and has no answer).
-- Params:
--   $names VARCHAR[]  catalog:prefix_cache_queries
--   $start TIMESTAMP  optional: only samples after this (NULL = from the first)
--   $end TIMESTAMP  optional: only samples at or before this (NULL = to the last)
-- The median is taken over the gaps counted by length (scrape_gaps, migration 010, reads sample
-- blocks when the edges allow) the way median() does: the middle gap, or halfway between the two.
-- Grain: one row; scrape_interval_s is NULL when no series has two samples in the range.
-- Columns: scrape_interval_s DOUBLE, num_gaps BIGINT
WITH counted AS (
    SELECT gap_us, num_gaps,
           sum(num_gaps) OVER (ORDER BY gap_us) - num_gaps AS num_below
    FROM scrape_gaps($names, $start, $end)
),
middle AS (
    -- NOTE: 0-based ranks of the two middle gaps; equal when the count is odd.
    SELECT sum(num_gaps) AS num_gaps,
           floor((sum(num_gaps) - 1) / 2) AS lo_rank,
           ceil((sum(num_gaps) - 1) / 2) AS hi_rank
    FROM counted
),
picked AS (
    SELECT m.num_gaps, m.lo_rank, m.hi_rank,
           max(c.gap_us) FILTER (WHERE c.num_below <= m.lo_rank AND m.lo_rank < c.num_below + c.num_gaps) AS lo_gap,
           max(c.gap_us) FILTER (WHERE c.num_below <= m.hi_rank AND m.hi_rank < c.num_below + c.num_gaps) AS hi_gap
    FROM middle m
    CROSS JOIN counted c
    GROUP BY m.num_gaps, m.lo_rank, m.hi_rank
)
SELECT (CAST(lo_gap AS DOUBLE) + ((num_gaps - 1) / 2 - lo_rank) * CAST(hi_gap - lo_gap AS DOUBLE)) / 1e6
           AS scrape_interval_s,
       CAST(coalesce(num_gaps, 0) AS BIGINT) AS num_gaps
FROM middle
LEFT JOIN picked USING (num_gaps, lo_rank, hi_rank)
