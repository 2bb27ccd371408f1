-- 008_window_finite: window_increases skips NaN and ±Inf samples.
-- A non-finite counter sample (a broken exporter, a `NaN` a proxy wrote) turned every increase
-- that touched it into NaN, or, compared as larger than any number, into a false restart whose
-- whole counter value was added. Such samples are stored as sent; the increase of a window is
-- now taken over its finite samples only (consecutive finite samples pair up across a skipped
-- one), and hit_rate / ttft_quantiles report how many they skipped (their num_skipped column).
-- Otherwise identical to 005_window_macros (same parameters, grain and columns).
CREATE OR REPLACE MACRO window_increases(names, t_start, t_end, step_s) AS TABLE
WITH candidates AS (
    SELECT series_id, metric, pod, labels, le, list_position(names, metric) AS name_rank
    FROM series
    WHERE list_contains(names, metric)
),
newest AS (
    SELECT pod, min(name_rank) AS name_rank FROM candidates GROUP BY pod
),
chosen AS (
    SELECT c.*
    FROM candidates c
    JOIN newest n ON c.pod IS NOT DISTINCT FROM n.pod AND c.name_rank = n.name_rank
),
points AS (
    SELECT c.series_id, c.metric, c.pod, c.labels, c.le, x.ts, x.value,
           CAST(ceil((epoch_us(x.ts) - epoch_us(t_start)) / (step_s * 1e6)) AS BIGINT) AS k
    FROM samples x
    JOIN chosen c USING (series_id)
    WHERE x.ts > t_start - to_microseconds(CAST(step_s * 1e6 AS BIGINT))
      AND x.ts <= t_end
      AND isfinite(x.value)  -- NaN and ±Inf samples stay stored but never enter an increase
),
pairs AS (
    SELECT *,
           lag(value) OVER w AS prev_value,
           lag(k) OVER w AS prev_k
    FROM points
    WINDOW w AS (PARTITION BY series_id ORDER BY ts)
)
SELECT t_start + to_microseconds(CAST(k * step_s * 1e6 AS BIGINT)) AS ts,
       series_id, any_value(metric) AS metric, any_value(pod) AS pod, any_value(labels) AS labels,
       any_value(le) AS le,
       sum(CASE WHEN value >= prev_value THEN value - prev_value ELSE value END) AS increase,
       count(*) + 1 AS num_samples
FROM pairs
WHERE prev_k = k
GROUP BY k, series_id;
