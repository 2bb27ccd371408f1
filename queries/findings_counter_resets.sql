-- findings_counter_resets: every counter reset (a sample lower than the one before it in the same
-- series: the process restarted), the evidence of a restart in a finding's window.
-- Params:
--   $start TIMESTAMP  resets after this time
--   $end TIMESTAMP  resets at or before this time
--   $names VARCHAR[]  catalog:prefix_cache_queries
-- Grain: one row per reset × series (a pod exports one series per name, so usually per pod).
-- Columns: ts TIMESTAMP, pod VARCHAR, metric VARCHAR, value_before DOUBLE, value_after DOUBLE
WITH points AS (
    SELECT s.pod, s.metric, x.series_id, x.ts, x.value,
           lag(x.value) OVER (PARTITION BY x.series_id ORDER BY x.ts) AS prev_value
    FROM samples x
    JOIN series s USING (series_id)
    WHERE list_contains($names, s.metric) AND x.ts <= $end
)
SELECT ts, pod, metric, prev_value AS value_before, value AS value_after
FROM points
WHERE ts > $start AND value < prev_value
ORDER BY ts, pod
