-- samples_stored_edge: the latest sample the store holds inside a batch's time span (NULL when it
-- holds none). A batch's points after it are new as they are: samples_insert_batch stores them
-- without samples_new's anti-join and temporary table. A collector's chunks share their boundary
-- instant (range selectors include both ends), so this is usually the chunk's first instant.
-- Params:
--   $lo TIMESTAMP  the batch's earliest ts
--   $hi TIMESTAMP  the batch's latest ts (constants, so DuckDB skips stored row groups outside)
-- Grain: one row. Columns: edge TIMESTAMP
SELECT max(ts) AS edge FROM samples WHERE ts BETWEEN $lo AND $hi
