-- trace_list: imported traces, newest first (or just the one named), for lists and lookups.
-- Params:
--   $trace_name VARCHAR  optional: only the trace of this name (NULL = every trace)
-- Grain: one row per trace.
-- Columns: trace_id INTEGER, name VARCHAR, format VARCHAR, source_path VARCHAR, block_tokens INTEGER,
--          num_requests BIGINT, num_block_accesses BIGINT, num_blocks BIGINT, type_names VARCHAR[],
--          has_tenants BOOLEAN, imported_at TIMESTAMP
SELECT trace_id, name, format, source_path, block_tokens, num_requests, num_block_accesses, num_blocks,
       type_names, has_tenants, imported_at
FROM traces
WHERE CAST($trace_name AS VARCHAR) IS NULL OR name = $trace_name
ORDER BY imported_at DESC, trace_id DESC
