-- findings_counter_resets: every counter reset (a sample lower than the one before it in the same
-- series: the process restarted), the evidence of a restart in a finding's window.
-- Params:
--   $start TIMESTAMP  resets after this time
--   $end TIMESTAMP  resets at or before this time
--   $names VARCHAR[]  catalog:prefix_cache_queries
-- Grain: one row per reset × series (a pod exports one series per name, so usually per pod).
-- Columns: ts TIMESTAMP, pod VARCHAR, metric VARCHAR, value_before DOUBLE, value_after DOUBLE
SELECT d.ts, s.pod, s.metric, d.value_before, d.value_after
FROM counter_drops($names, $start, $end) d
JOIN series s USING (series_id)
ORDER BY d.ts, s.pod
