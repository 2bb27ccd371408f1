-- series_insert: register the series of `staged_series` that the store has not seen yet.
-- Params: none. Grain: one new row per unseen series_key.
INSERT INTO series (series_key, metric, labels, pod, le)
SELECT series_key, any_value(metric), any_value(labels), any_value(pod), any_value(le)
FROM staged_series
WHERE series_key NOT IN (SELECT series_key FROM series)
GROUP BY series_key
