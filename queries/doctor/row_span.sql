-- row_span: a table of the damaged store's row count and one past its largest rowid (rowids are
-- 0-based and may have gaps after deletes); neither reads column data.
-- Identifiers: {table} is a table name both stores hold (quoted by the store layer, never user text).
-- Grain: one row.
-- Columns: num_rows BIGINT, num_rowids BIGINT
SELECT count(*) AS num_rows, coalesce(max(rowid), -1) + 1 AS num_rowids
FROM damaged.main.{table}
