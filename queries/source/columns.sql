-- source/columns: the columns of one of the store's tables, as the migrations made them.
-- Params:
--   $table VARCHAR  a table name from the export's own list
-- Grain: one row per column, in table order.
-- Columns: column_name VARCHAR, data_type VARCHAR
SELECT column_name, data_type
FROM information_schema.columns
WHERE table_schema = 'main' AND table_name = $table
ORDER BY ordinal_position
