-- source/files: how many files a Parquet source holds for one table.
-- Identifiers: {files} the table's file glob (e.g. DIR/samples/**/*.parquet), a quoted SQL literal.
-- Grain: one row.
-- Columns: num_files BIGINT
SELECT count(*) AS num_files FROM glob({files})
