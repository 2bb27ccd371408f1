-- export/samples: every sample as Hive-partitioned Parquet, {path}/family=F/day=D/data_N.parquet.
-- family is the sample's series' metric family (export/family_macro), day its UTC date; rows keep
-- the store's columns (series_id, ts UTC, value), sorted by series and time.
-- Identifiers: {path} the folder to write, a quoted SQL literal (quotes doubled by the store layer).
-- Grain: the COPY's row count.
-- Columns: Count BIGINT
COPY (
    SELECT x.series_id, x.ts, x.value, metric_family(s.metric) AS family, CAST(x.ts AS DATE) AS day
    FROM samples x
    JOIN series s USING (series_id)
    ORDER BY x.series_id, x.ts
) TO {path} (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (family, day))
