-- ttft_quantiles: TTFT quantiles per window from vLLM's histogram, computed like Prometheus's
-- histogram_quantile(q, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket[step]))):
-- bucket increases summed over pods by le, cumulative counts made monotonic, linear
-- interpolation inside the bucket holding rank q × count; a rank in the +Inf bucket returns the
-- highest finite bound; the first bucket starts at 0.
-- Params:
--   $start TIMESTAMP  first row's ts (ISO-8601 or epoch seconds, UTC)
--   $end TIMESTAMP  last row is at or before this
--   $step DOUBLE  window length and row spacing, seconds
--   $q DOUBLE[]  quantiles in [0, 1], e.g. 0.5,0.9,0.99
--   $pod VARCHAR  optional: one pod only (NULL = the whole cluster)
--   $bucket_names VARCHAR[]  catalog:ttft_seconds
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
-- Grain: one row per ts × q; ttft_s is NULL for a window without observations.
-- Columns: ts TIMESTAMP, q DOUBLE, ttft_s DOUBLE, num_requests DOUBLE
WITH buckets AS (
    SELECT ts, le, sum(increase) AS num_le
    FROM window_increases($bucket_names, $start, $end, $step)
    WHERE le IS NOT NULL AND ($pod IS NULL OR pod = $pod) AND (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
    GROUP BY ts, le
),
monotonic AS (
    -- NOTE: ensureMonotonic, as Prometheus does: a bucket never counts less than the one below.
    SELECT ts, le,
           max(num_le) OVER (PARTITION BY ts ORDER BY le ROWS UNBOUNDED PRECEDING) AS num_le
    FROM buckets
),
cumulative AS (
    SELECT ts, le, num_le,
           lag(le) OVER (PARTITION BY ts ORDER BY le) AS lower_le,
           coalesce(lag(num_le) OVER (PARTITION BY ts ORDER BY le), 0) AS num_below
    FROM monotonic
),
totals AS (
    SELECT ts,
           max(num_le) FILTER (WHERE le = 'inf'::DOUBLE) AS num_total,
           max(le) FILTER (WHERE le < 'inf'::DOUBLE) AS top_finite_le,
           count(*) AS num_buckets
    FROM cumulative
    GROUP BY ts
),
ranked AS (
    SELECT t.ts, qs.q, t.num_total, t.top_finite_le, t.num_buckets, qs.q * t.num_total AS rank
    FROM totals t
    CROSS JOIN (SELECT unnest(CAST($q AS DOUBLE[])) AS q) qs
),
located AS (
    -- The first finite bucket whose cumulative count reaches the rank (sort.Search in Prometheus);
    -- no such bucket means the rank falls in +Inf.
    SELECT r.*, c.le, c.lower_le, c.num_le, c.num_below
    FROM ranked r
    LEFT JOIN cumulative c ON c.ts = r.ts AND c.le < 'inf'::DOUBLE AND c.num_le >= r.rank
    QUALIFY row_number() OVER (PARTITION BY r.ts, r.q ORDER BY c.le NULLS LAST) = 1
),
quantiles AS (
    SELECT ts, q, num_total,
           CASE
               WHEN num_total IS NULL OR num_total = 0 OR num_buckets < 2 THEN NULL
               WHEN q < 0 THEN '-inf'::DOUBLE
               WHEN q > 1 THEN 'inf'::DOUBLE
               WHEN le IS NULL THEN top_finite_le
               WHEN lower_le IS NULL AND le <= 0 THEN le
               ELSE coalesce(lower_le, 0) + (le - coalesce(lower_le, 0))
                    * (rank - num_below) / (num_le - num_below)
           END AS ttft_s
    FROM located
)
SELECT ts, q, ttft_s, num_total AS num_requests
FROM quantiles
ORDER BY ts, q
