-- query_result_series: the series of the answer in temp table `query_result` (query_result_read),
-- their name taken out of the labels as the metric.
-- Params: none. Grain: one row per series of the answer.
-- Columns: idx BIGINT, metric VARCHAR (NULL when the answer has no __name__), labels MAP(VARCHAR, VARCHAR).
SELECT
    idx,
    r.metric['__name__'] AS metric,
    map_from_entries(list_filter(map_entries(r.metric), lambda e: e.key != '__name__')) AS labels
FROM query_result
ORDER BY idx
