-- samples_insert: store the cursor's new_points (samples_new) in samples.
-- Params: none.
-- Grain: one row per series × ts; the INSERT's row count.
INSERT INTO samples (series_id, ts, value)
SELECT series_id, ts, value FROM new_points
