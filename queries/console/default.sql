-- console/default: the SQL console's starting text on the Traces page (the stored traces, newest first).
SELECT name, format, num_requests, num_block_accesses, num_blocks FROM traces ORDER BY imported_at DESC
