-- samples_span: the earliest and latest ts of every stored sample, read from the samples themselves
-- (a rebuild of the sample blocks cannot ask the blocks).
-- Params: none.
-- Grain: one row.
-- Columns: lo TIMESTAMP, hi TIMESTAMP
SELECT min(ts) AS lo, max(ts) AS hi FROM samples
