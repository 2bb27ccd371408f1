-- export/annotations: the stored annotations as Hive-partitioned Parquet, {path}/day=D/data_N.parquet.
-- The store's annotations columns plus day, the UTC date of ts.
-- Identifiers: {path} the folder to write, a quoted SQL literal (quotes doubled by the store layer).
-- Grain: the COPY's row count.
-- Columns: Count BIGINT
COPY (
    SELECT ts, kind, text, CAST(ts AS DATE) AS day
    FROM annotations
    ORDER BY ts
) TO {path} (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (day))
