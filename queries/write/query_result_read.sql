-- query_result_read: read a Prometheus query-API answer (`selector[W]` at an instant: a matrix of
-- raw samples) from the JSON file $path into temp table `query_result`, one row per series.
-- NOTE: DuckDB's JSON reader does the parsing, so no Python object is made per sample; it reads
-- the quoted sample values as numbers, but Prometheus's "+Inf"/"-Inf" must arrive as "inf"/"-inf".
-- Params:
--   $path VARCHAR  the answer's JSON file
-- Grain: one row per series of the answer.
-- Columns: idx BIGINT (0-based position in the answer), r STRUCT(metric MAP, "values" DOUBLE[2][])
CREATE OR REPLACE TEMP TABLE query_result AS
SELECT unnest(range(len(data.result))) AS idx, unnest(data.result) AS r
FROM read_json(
    $path,
    columns = {'data': 'STRUCT(result STRUCT(metric MAP(VARCHAR, VARCHAR), "values" DOUBLE[2][])[])'},
    format = 'unstructured',
    maximum_object_size = 2147483647
)
