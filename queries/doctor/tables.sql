-- tables: the base tables of one attached database, as its catalog lists them (no data is read).
-- Params:
--   $database VARCHAR  optional: the attached database's name (NULL = the store's own)
-- Grain: one row per table of schema main.
-- Columns: table_name VARCHAR
SELECT table_name
FROM duckdb_tables()
WHERE database_name = coalesce($database, current_database()) AND schema_name = 'main' AND NOT temporary
ORDER BY table_name
