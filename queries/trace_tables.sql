-- trace_tables: whether this store has the trace tables (a store opened read-only is not migrated).
-- Grain: one row.
-- Columns: has_traces BOOLEAN
SELECT count(*) > 0 AS has_traces FROM information_schema.tables WHERE table_name = 'traces'
