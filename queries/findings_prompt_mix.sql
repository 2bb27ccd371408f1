-- findings_prompt_mix: the prompt mix of the stored request rows per window (when a trace or the
-- sample's requests are stored): how many requests, their mean and 90th-percentile prompt length, so a finding can say "the prompts changed".
-- Params:
--   $start TIMESTAMP  first row's ts
--   $end TIMESTAMP  last row at or before this
--   $step DOUBLE  window length and row spacing, seconds
-- Grain: one row per ts (windows holding at least one request), covering (ts − step, ts].
-- Columns: ts TIMESTAMP, num_requests BIGINT, mean_input_tokens DOUBLE, p90_input_tokens DOUBLE
WITH windowed AS (
    SELECT CAST(ceil((epoch_us(ts) - epoch_us($start)) / ($step * 1e6)) AS BIGINT) AS k,
           input_tokens
    FROM requests
    WHERE ts > $start - to_microseconds(CAST($step * 1e6 AS BIGINT)) AND ts <= $end
)
SELECT $start + to_microseconds(CAST(k * $step * 1e6 AS BIGINT)) AS ts,
       count(*) AS num_requests,
       avg(input_tokens) AS mean_input_tokens,
       quantile_cont(input_tokens, 0.9) AS p90_input_tokens
FROM windowed
GROUP BY k
ORDER BY ts
