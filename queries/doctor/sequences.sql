-- sequences: each sequence of one attached database and the last value it handed out.
-- Params:
--   $database VARCHAR  optional: the attached database's name (NULL = the store's own)
-- Grain: one row per sequence.
-- Columns: sequence_name VARCHAR, last_value BIGINT
SELECT sequence_name, last_value
FROM duckdb_sequences()
WHERE database_name = coalesce($database, current_database()) AND schema_name = 'main'
ORDER BY sequence_name
