-- query_result_split: `query_result` as the batch the series and sample inserts read: views
-- `incoming_series` (idx, metric, labels without __name__) and `incoming_points` (idx, ts, value).
-- A target without a `pod` label gets pod = its `instance` (direct /metrics targets often lack one).
-- Prometheus timestamps are whole milliseconds: rounding first keeps a re-pulled sample's key equal.
-- Params: none. Grain: incoming_series one row per series, incoming_points one per sample.
-- Columns: incoming_series(idx, metric, labels), incoming_points(idx, ts, value).
CREATE OR REPLACE TEMP VIEW incoming_series AS
WITH named AS (
    SELECT idx, r.metric['__name__'] AS metric,
           map_from_entries(list_filter(map_entries(r.metric), lambda e: e.key != '__name__')) AS labels
    FROM query_result
)
SELECT idx, metric,
       CASE WHEN map_contains(labels, 'pod') THEN labels
            ELSE map_concat(labels, MAP {'pod': coalesce(labels['instance'], '')}) END AS labels
FROM named;
CREATE OR REPLACE TEMP VIEW incoming_points AS
SELECT idx, make_timestamp(CAST(round(p[1] * 1000) AS BIGINT) * 1000) AS ts, p[2] AS value
FROM (SELECT idx, unnest(r."values") AS p FROM query_result);
