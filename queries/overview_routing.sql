-- overview_routing: requests the EPP scheduled to each endpoint per window, and each endpoint's
-- share of the window (successful scheduling attempts; llm-d labels the endpoint
-- `endpoint_name`, GAIE `pod_name`).
-- Params:
--   $start TIMESTAMP  first row's ts
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  window length and row spacing, seconds
--   $names VARCHAR[]  catalog:epp_scheduler_attempts
-- Grain: one row per ts × endpoint.
-- Columns: ts TIMESTAMP, endpoint VARCHAR, num_requests DOUBLE, share DOUBLE
WITH attempts AS (
    SELECT ts, coalesce(labels['endpoint_name'], labels['pod_name']) AS endpoint, increase
    FROM window_increases($names, $start, $end, $step)
    WHERE coalesce(labels['status'], 'success') = 'success'
),
per_endpoint AS (
    SELECT ts, endpoint, sum(increase) AS num_requests FROM attempts GROUP BY ts, endpoint
)
SELECT ts, endpoint, num_requests,
       num_requests / nullif(sum(num_requests) OVER (PARTITION BY ts), 0) AS share
FROM per_endpoint
ORDER BY ts, endpoint
