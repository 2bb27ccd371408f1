-- overview_ttft_distribution: how many requests' TTFT fell in each vLLM histogram bucket over
-- (start, end], from bucket increases summed over pods (cumulative counts de-cumulated).
-- Params:
--   $start TIMESTAMP  range start (exclusive)
--   $end TIMESTAMP  range end (inclusive)
--   $pod VARCHAR  optional: one pod only
--   $bucket_names VARCHAR[]  catalog:ttft_seconds
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
-- Grain: one row per bucket (le), +Inf last.
-- Columns: lower_s DOUBLE, upper_s DOUBLE, num_requests DOUBLE
WITH per_le AS (
    SELECT le, sum(increase) AS num_le
    FROM window_increases($bucket_names, $end, $end, epoch($end) - epoch($start))
    WHERE le IS NOT NULL AND ($pod IS NULL OR pod = $pod) AND (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
    GROUP BY le
),
monotonic AS (
    SELECT le, max(num_le) OVER (ORDER BY le ROWS UNBOUNDED PRECEDING) AS num_le FROM per_le
)
SELECT coalesce(lag(le) OVER (ORDER BY le), 0) AS lower_s,
       le AS upper_s,
       num_le - coalesce(lag(num_le) OVER (ORDER BY le), 0) AS num_requests
FROM monotonic
ORDER BY le
