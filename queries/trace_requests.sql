-- trace_requests: every request of one imported trace, in arrival order, to rebuild the Trace.
-- Params:
--   $trace_name VARCHAR  trace name
-- Grain: one row per request.
-- Columns: idx BIGINT, arrival_s DOUBLE, session_id BIGINT, turn INTEGER, type VARCHAR, tenant_id INTEGER,
--          input_tokens BIGINT, output_tokens BIGINT, block_ids INTEGER[]
SELECT r.idx, r.arrival_s, r.session_id, r.turn, r.type, r.tenant_id, r.input_tokens, r.output_tokens, r.block_ids
FROM trace_requests AS r
JOIN traces AS t USING (trace_id)
WHERE t.name = $trace_name
ORDER BY r.idx
