-- observed_requests: the stored requests (the `requests` table: the sample's, or rows written
-- beside the metrics) that arrived at or before $end, with the pod each was routed to, so they can
-- be replayed through the observed configuration (earlier ones warm the caches up).
-- Params:
--   $end TIMESTAMP  the last arrival to include
-- Grain: one row per request with a known pod and prompt, in arrival order.
-- Columns: ts TIMESTAMP, pod VARCHAR, input_tokens BIGINT, output_tokens BIGINT, block_tokens INTEGER,
--          block_ids BIGINT[]
SELECT ts, pod, input_tokens, coalesce(output_tokens, 0) AS output_tokens, block_tokens, block_ids
FROM requests
WHERE ts <= $end AND pod IS NOT NULL AND input_tokens IS NOT NULL AND block_ids IS NOT NULL
ORDER BY ts, request_id
