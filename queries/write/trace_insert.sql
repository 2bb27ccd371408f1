-- trace_insert: register one imported trace; returns its new trace_id (max + 1).
-- Params:
--   $trace_name VARCHAR  unique trace name
--   $format VARCHAR  reader format (mooncake, bailian, canonical, openai-chat)
--   $source_path VARCHAR  file the trace was read from
--   $block_tokens INTEGER  tokens per block
--   $num_requests BIGINT  requests
--   $num_block_accesses BIGINT  blocks over all requests
--   $num_blocks BIGINT  distinct blocks
--   $type_names VARCHAR[]  request type names (type codes index this list)
--   $has_tenants VARCHAR  'true' when the trace carries tenant ids
--   $imported_at TIMESTAMP  import time (UTC)
-- Grain: one row per trace. Columns returned: trace_id INTEGER
INSERT INTO traces (trace_id, name, format, source_path, block_tokens, num_requests, num_block_accesses,
                    num_blocks, type_names, has_tenants, imported_at)
SELECT coalesce(max(trace_id), 0) + 1, $trace_name, $format, $source_path, $block_tokens, $num_requests,
       $num_block_accesses, $num_blocks, CAST($type_names AS VARCHAR[]), CAST($has_tenants AS BOOLEAN), $imported_at
FROM traces
RETURNING trace_id
