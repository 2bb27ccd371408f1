-- export/requests: the stored requests as Hive-partitioned Parquet, {path}/day=D/data_N.parquet.
-- The store's requests columns (DESIGN.md's interchange format) plus day, the UTC date of ts.
-- Identifiers: {path} the folder to write, a quoted SQL literal (quotes doubled by the store layer).
-- Grain: the COPY's row count.
-- Columns: Count BIGINT
COPY (
    SELECT ts, request_id, session_id, turn, tenant, input_tokens, output_tokens, block_tokens, block_ids,
           pod, cached_tokens_gpu, cached_tokens_cpu, ttft_s, CAST(ts AS DATE) AS day
    FROM requests
    ORDER BY ts, request_id
) TO {path} (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (day))
