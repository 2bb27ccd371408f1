-- series_stage: canonicalise the series of a batch (registered as `incoming_series`) into temp
-- table `staged_series`; the batch's samples (`incoming_points`) refer to them by idx.
-- Params: none. `incoming_series` has idx BIGINT, metric VARCHAR, labels MAP(VARCHAR, VARCHAR).
-- Grain: one row per incoming series (two may share a series_key when labels differ only by order).
-- Columns: idx, series_key, metric, labels, pod, le.
CREATE OR REPLACE TEMP TABLE staged_series AS
SELECT
    idx,
    metric || '{' || array_to_string(
        list_sort(list_transform(map_entries(labels), lambda e: e.key || '=' || e.value)), ','
    ) || '}' AS series_key,
    metric,
    labels,
    labels['pod'] AS pod,
    TRY_CAST(replace(labels['le'], '+Inf', 'inf') AS DOUBLE) AS le
FROM incoming_series
