-- metric_names: every exported metric name the store holds samples for.
-- Params: none.
-- Grain: one row per metric name.
-- Columns: metric VARCHAR, num_series BIGINT
SELECT metric, count(*) AS num_series
FROM series
GROUP BY metric
ORDER BY metric
