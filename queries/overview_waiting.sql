-- overview_waiting: why requests wait, per window over the selected pods: waiting requests by reason
-- (vllm:num_requests_waiting_by_reason, last sample per window summed over pods; reason
-- capacity = no free KV blocks, deferred) and preemptions per second (vllm:num_preemptions_total).
-- Params:
--   $start TIMESTAMP  first row's ts
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  window length and row spacing, seconds
--   $pods VARCHAR[]  optional: only these pods (NULL = every pod)
--   $waiting_names VARCHAR[]  catalog:num_requests_waiting_by_reason
--   $preemption_names VARCHAR[]  catalog:num_preemptions
-- Grain: one row per ts × series ('waiting: REASON' in requests, 'preemptions' per second).
-- Columns: ts TIMESTAMP, series VARCHAR, value DOUBLE
WITH waiting AS (
    SELECT ts, 'waiting: ' || coalesce(labels['reason'], 'all') AS series, sum(value) AS value
    FROM window_last($waiting_names, $start, $end, $step)
    WHERE (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
    GROUP BY ts, series
),
preempted AS (
    SELECT ts, 'preemptions' AS series, sum(increase) / $step AS value
    FROM window_increases($preemption_names, $start, $end, $step)
    WHERE (CAST($pods AS VARCHAR[]) IS NULL OR list_contains($pods, pod))
    GROUP BY ts
)
SELECT ts, series, value FROM (SELECT * FROM waiting UNION ALL SELECT * FROM preempted)
ORDER BY ts, series
