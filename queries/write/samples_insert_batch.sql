-- samples_insert_batch: store the points of `incoming_points` whole: each is later than every
-- stored sample of its span (samples_stored_edge) and the batch repeats no (series, ts) pair, so
-- none can be a sample the store holds.
-- Params: none.
-- Grain: one row per series × ts; the INSERT's row count.
INSERT INTO samples (series_id, ts, value)
SELECT series_id, ts, value FROM incoming_points
