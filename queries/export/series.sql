-- export/series: every series as Hive-partitioned Parquet, {path}/family=F/data_N.parquet.
-- The store's series columns plus family (export/family_macro), so an outside reader joins samples
-- on (series_id, family) and prunes both sides by family.
-- Identifiers: {path} the folder to write, a quoted SQL literal (quotes doubled by the store layer).
-- Grain: the COPY's row count.
-- Columns: Count BIGINT
COPY (
    SELECT series_id, series_key, metric, labels, pod, le, metric_family(metric) AS family
    FROM series
    ORDER BY series_id
) TO {path} (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (family))
