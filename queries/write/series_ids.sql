-- series_ids: the stored series_id of each series of a batch (`incoming_series`: idx, series_key,
-- metric, labels) that the store already knows; an unknown one has no row (series_insert adds it).
-- Params: none. Grain: one row per known incoming series.
-- Columns: idx BIGINT, series_id BIGINT.
SELECT i.idx, s.series_id
FROM incoming_series i
JOIN series s USING (series_key)
