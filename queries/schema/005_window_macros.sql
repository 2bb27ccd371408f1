-- 005_window_macros: the shared windowed-counter logic every rate query uses (DESIGN.md semantics).
--
-- window_increases(names, t_start, t_end, step_s): one row per window × series with the counter's
-- increase inside the window. Rows fall at ts = t_start + k × step_s (k ≥ 0, ts ≤ t_end); the row
-- at ts covers (ts − step_s, ts], like PromQL's rate(x[step]) evaluated at ts.
--   * names: the catalog's name variants, newest first. Each pod uses ONE variant — the newest it
--     exports — so variants are never added together.
--   * increase = sum over consecutive sample pairs inside the window of (v − prev) when v ≥ prev,
--     else v (a drop is a restart: the new value is the increase since the reset), i.e.
--     Prometheus's increase() without its extrapolation (which cancels in every ratio we show).
-- Columns: ts TIMESTAMP, series_id BIGINT, metric VARCHAR, pod VARCHAR, labels MAP, le DOUBLE,
--          increase DOUBLE, num_samples BIGINT.
-- NOTE: 008_window_finite redefines window_increases to leave NaN and ±Inf samples out.
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

-- window_last(names, t_start, t_end, step_s): the last sample of each gauge series in each window
-- (what a PromQL instant query at ts sees, within one step of lookback), one variant per pod.
-- Columns: ts TIMESTAMP, series_id BIGINT, metric VARCHAR, pod VARCHAR, labels MAP, value DOUBLE.
CREATE OR REPLACE MACRO window_last(names, t_start, t_end, step_s) AS TABLE
WITH candidates AS (
    SELECT series_id, metric, pod, labels, list_position(names, metric) AS name_rank
    FROM series
    WHERE list_contains(names, metric)
),
newest AS (
    SELECT pod, min(name_rank) AS name_rank FROM candidates GROUP BY pod
),
points AS (
    SELECT c.series_id, c.metric, c.pod, c.labels, x.ts AS sample_ts, x.value,
           CAST(ceil((epoch_us(x.ts) - epoch_us(t_start)) / (step_s * 1e6)) AS BIGINT) AS k
    FROM samples x
    JOIN candidates c USING (series_id)
    JOIN newest n ON c.pod IS NOT DISTINCT FROM n.pod AND c.name_rank = n.name_rank
    WHERE x.ts > t_start - to_microseconds(CAST(step_s * 1e6 AS BIGINT))
      AND x.ts <= t_end
)
SELECT t_start + to_microseconds(CAST(k * step_s * 1e6 AS BIGINT)) AS ts,
       series_id, any_value(metric) AS metric, any_value(pod) AS pod, any_value(labels) AS labels,
       arg_max(value, sample_ts) AS value
FROM points
GROUP BY k, series_id;
