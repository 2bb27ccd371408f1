-- trace_counts: how many rows the trace tables hold (to check that a failed import changed nothing).
-- Grain: one row.
-- Columns: num_traces BIGINT, num_trace_requests BIGINT
SELECT (SELECT count(*) FROM traces) AS num_traces, (SELECT count(*) FROM trace_requests) AS num_trace_requests
