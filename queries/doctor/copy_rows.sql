-- copy_rows: copy the rows with rowid in [$lo, $hi) of one table of the damaged store into the
-- same table of the new store, matching columns by name (a column the old schema lacks is NULL).
-- Identifiers: {table} is a table name both stores hold (quoted by the store layer, never user text).
-- Params:
--   $lo BIGINT  first rowid
--   $hi BIGINT  one past the last rowid
-- Grain: the INSERT's row count.
-- Columns: Count BIGINT
INSERT INTO main.{table} BY NAME
SELECT * FROM damaged.main.{table}
WHERE rowid >= $lo AND rowid < $hi
