-- samples_stage: canonicalise an incoming batch (registered as `incoming`) into temp table `staged`.
-- Params: none. `incoming` has ts TIMESTAMP, metric VARCHAR, labels MAP(VARCHAR, VARCHAR), value DOUBLE.
-- Grain: one row per series_key × ts (duplicates inside the batch keep the last value seen).
-- Columns: series_key, metric, labels, pod, le, ts, value.
CREATE OR REPLACE TEMP TABLE staged AS
WITH keyed AS (
    SELECT
        metric || '{' || array_to_string(
            list_sort(list_transform(map_entries(labels), lambda e: e.key || '=' || e.value)), ','
        ) || '}' AS series_key,
        metric,
        labels,
        labels['pod'] AS pod,
        TRY_CAST(replace(labels['le'], '+Inf', 'inf') AS DOUBLE) AS le,
        ts,
        value
    FROM incoming
)
SELECT series_key, any_value(metric) AS metric, any_value(labels) AS labels, any_value(pod) AS pod,
       any_value(le) AS le, ts, last(value) AS value
FROM keyed
GROUP BY series_key, ts
