-- series_insert: register the series of a batch (`incoming_series`: idx, series_key, metric,
-- labels MAP(VARCHAR, VARCHAR)) that the store has not seen yet, with their pod and bucket bound.
-- Params: none. Grain: one new row per unseen series_key.
INSERT INTO series (series_key, metric, labels, pod, le)
SELECT
    series_key,
    any_value(metric),
    any_value(labels),
    any_value(labels['pod']),
    any_value(TRY_CAST(replace(labels['le'], '+Inf', 'inf') AS DOUBLE))
FROM incoming_series
WHERE series_key NOT IN (SELECT series_key FROM series)
GROUP BY series_key
