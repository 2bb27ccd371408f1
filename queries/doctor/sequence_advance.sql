-- sequence_advance: draw $num values from a sequence of the current database so its next value
-- follows the rows copied into it (DuckDB has no setval).
-- Params:
--   $sequence VARCHAR  sequence name from doctor/sequences
--   $num BIGINT  how many values to draw
-- Grain: one row.
-- Columns: num_drawn BIGINT
SELECT count(nextval($sequence)) AS num_drawn
FROM range($num)
