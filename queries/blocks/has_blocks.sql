-- has_blocks: whether the store has the sample_blocks table (migration 009), so a write keeps it.
-- Params: none.
-- Grain: one row.
-- Columns: has_blocks BOOLEAN
SELECT count(*) > 0 AS has_blocks
FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'sample_blocks'
