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
-- NaN and ±Inf bucket samples are stored as sent but left out of the increases (window_increases
-- pairs the finite samples around them): num_skipped counts them per window. num_fixed_buckets
-- counts the buckets that counted fewer than a lower one and were raised to it (Prometheus's
-- "fixed for monotonicity"), so a chart can say either happened.
-- Grain: one row per ts × q; ttft_s is NULL for a window without observations.
-- Columns: ts TIMESTAMP, q DOUBLE, ttft_s DOUBLE, num_requests DOUBLE, num_skipped BIGINT,
--          num_fixed_buckets BIGINT
WITH buckets AS (
    SELECT ts, le, sum(increase) AS num_le
    FROM window_increases($bucket_names, $start, $end, $step)
    WHERE le IS NOT NULL AND ($pod IS NULL OR pod = $pod) AND (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
    GROUP BY ts, le
),
monotonic AS (
    -- NOTE: ensureMonotonic, as Prometheus does: a bucket never counts less than the one below.
    SELECT ts, le, num_le < max(num_le) OVER w AS is_fixed, max(num_le) OVER w AS num_le
    FROM buckets
    WINDOW w AS (PARTITION BY ts ORDER BY le ROWS UNBOUNDED PRECEDING)
),
cumulative AS (
    SELECT ts, le, num_le, is_fixed,
           lag(le) OVER (PARTITION BY ts ORDER BY le) AS lower_le,
           coalesce(lag(num_le) OVER (PARTITION BY ts ORDER BY le), 0) AS num_below
    FROM monotonic
),
totals AS (
    SELECT ts,
           max(num_le) FILTER (WHERE le = 'inf'::DOUBLE) AS num_total,
           max(le) FILTER (WHERE le < 'inf'::DOUBLE) AS top_finite_le,
           count(*) AS num_buckets,
           count(*) FILTER (WHERE is_fixed) AS num_fixed_buckets
    FROM cumulative
    GROUP BY ts
),
ranked AS (
    SELECT t.ts, qs.q, t.num_total, t.top_finite_le, t.num_buckets, t.num_fixed_buckets, qs.q * t.num_total AS rank
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
    SELECT ts, q, num_total, num_fixed_buckets,
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
),
chosen AS (
    -- The bucket series window_increases reads: each pod's newest name variant.
    SELECT s.series_id
    FROM series s
    WHERE list_contains($bucket_names, s.metric) AND s.le IS NOT NULL
      AND ($pod IS NULL OR s.pod = $pod) AND (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, s.pod))
    QUALIFY list_position($bucket_names, s.metric) = min(list_position($bucket_names, s.metric)) OVER (PARTITION BY s.pod)
),
skipped AS (
    SELECT $start + to_microseconds(CAST(k * $step * 1e6 AS BIGINT)) AS ts, count(*) AS num_skipped
    FROM (
        SELECT CAST(ceil((epoch_us(x.ts) - epoch_us($start)) / ($step * 1e6)) AS BIGINT) AS k
        FROM samples x
        JOIN chosen USING (series_id)
        -- NOTE: NOT isfinite(value), written as a range: DuckDB orders NaN above +Inf, so row
        -- groups whose min/max are finite are skipped unread (most hold no NaN or ±Inf at all).
        WHERE (x.value > 1.7976931348623157e308 OR x.value < -1.7976931348623157e308)
          AND x.ts > $start - to_microseconds(CAST($step * 1e6 AS BIGINT))
          AND x.ts <= $end
    )
    GROUP BY k
)
SELECT qu.ts, qu.q, qu.ttft_s, qu.num_total AS num_requests,
       CAST(coalesce(sk.num_skipped, 0) AS BIGINT) AS num_skipped, qu.num_fixed_buckets
FROM quantiles qu
LEFT JOIN skipped sk ON sk.ts = qu.ts
ORDER BY qu.ts, qu.q
