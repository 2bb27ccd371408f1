-- samples_insert: add the samples of `staged`; a (series, ts) already stored is kept as it was,
-- so pulling the same window twice stores each sample once.
-- Params: none. Grain: one row per series × ts.
INSERT OR IGNORE INTO samples (series_id, ts, value)
SELECT s.series_id, st.ts, st.value
FROM staged st
JOIN series s USING (series_key)
