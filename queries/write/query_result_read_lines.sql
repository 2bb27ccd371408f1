-- query_result_read_lines: query_result_read for an answer already split one result element per
-- line (writes.py does that for Prometheus's own compact encoding): the same temp table
-- `query_result`, but DuckDB reads newline-delimited JSON on all its threads, where one 2 MB
-- object is parsed on one.
-- Params:
--   $path VARCHAR  the file of result elements, one per line
-- Grain: one row per series of the answer.
-- Columns: idx BIGINT (unique per series; not necessarily its position, the lines are read in
--          parallel), r STRUCT(metric MAP, "values" DOUBLE[2][])
CREATE OR REPLACE TEMP TABLE query_result AS
SELECT row_number() OVER () - 1 AS idx, {'metric': metric, 'values': "values"} AS r
FROM read_json(
    $path,
    columns = {'metric': 'MAP(VARCHAR, VARCHAR)', 'values': 'DOUBLE[2][]'},
    format = 'newline_delimited',
    maximum_object_size = 2147483647
)
