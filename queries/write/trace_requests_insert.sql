-- trace_requests_insert: copy the registered Arrow table `incoming_trace` into trace_requests.
-- Params:
--   $trace_id INTEGER  the trace the rows belong to (from trace_insert)
-- Grain: one row per request. incoming_trace columns: idx, arrival_s, session_id, turn, type,
--   tenant_id, input_tokens, output_tokens, block_ids (list of int32).
INSERT INTO trace_requests (trace_id, idx, arrival_s, session_id, turn, type, tenant_id, input_tokens,
                            output_tokens, block_ids)
SELECT $trace_id, idx, arrival_s, session_id, turn, type, tenant_id, input_tokens, output_tokens,
       CAST(block_ids AS INTEGER[])
FROM incoming_trace
