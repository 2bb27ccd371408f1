-- store_counts: how much the store holds, for "is it empty?" checks (load-sample --if-empty).
-- Params: none.
-- Grain: one row.
-- Columns: num_series BIGINT, num_samples BIGINT, num_requests BIGINT, num_annotations BIGINT
SELECT (SELECT count(*) FROM series) AS num_series,
       (SELECT count(*) FROM samples) AS num_samples,
       (SELECT count(*) FROM requests) AS num_requests,
       (SELECT count(*) FROM annotations) AS num_annotations
