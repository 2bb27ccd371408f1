-- source/view: replace one of the (empty, just migrated) tables by a view over its Parquet files,
-- with the table's own column names, order and types, so every named query runs unchanged.
-- Partition columns (family, day) stay out of the view: the store's tables have none.
-- Identifiers: {table} a table name from the export's own list; {columns} that table's columns as
--   `CAST("c" AS TYPE) AS "c", …` from the migrated catalog; {files} the file glob, a quoted SQL
--   literal. None comes from user text but the quoted glob.
-- Grain: no rows.
-- Columns: none
DROP TABLE {table};
CREATE VIEW {table} AS
SELECT {columns}
FROM read_parquet({files}, hive_partitioning = true);
