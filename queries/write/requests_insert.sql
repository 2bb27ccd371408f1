-- requests_insert: append the interchange request rows registered as `incoming`.
-- Params: none. Grain: one row per request.
INSERT INTO requests
SELECT ts, request_id, session_id, turn, tenant, input_tokens, output_tokens, block_tokens,
       block_ids, pod, cached_tokens_gpu, cached_tokens_cpu, ttft_s
FROM incoming
