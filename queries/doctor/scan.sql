-- scan: read every value of one table (a block's checksum is checked only when it is read).
-- NOTE: hashing the whole row makes DuckDB read every column; count(*) alone reads none.
-- Params:
--   $table VARCHAR  a qualified table name from doctor/tables (e.g. `main.samples`)
-- Grain: one row.
-- Columns: num_rows BIGINT, checksum UBIGINT
SELECT count(*) AS num_rows, bit_xor(hash(t)) AS checksum
FROM query_table($table) AS t
