-- query_result_points: the samples of the answer in temp table `query_result` (query_result_read).
-- Prometheus timestamps are whole milliseconds: rounding first keeps a re-pulled sample's key equal.
-- Params: none. Grain: one row per sample.
-- Columns: idx BIGINT (the series, as in query_result_series), ts TIMESTAMP, value DOUBLE.
SELECT idx, make_timestamp(CAST(round(p[1] * 1000) AS BIGINT) * 1000) AS ts, p[2] AS value
FROM (SELECT idx, unnest(r."values") AS p FROM query_result)
