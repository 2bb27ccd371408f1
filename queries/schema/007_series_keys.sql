-- 007_series_keys: series_key in an encoding no two label sets share.
-- The earlier key `metric{k1=v1,k2=v2}` joined label texts with `,` and `=` unescaped, so
-- {engine="a,namespace=b"} and {engine="a",namespace="b"} got one key and one series row (the
-- second's samples were stored under the first's labels). The key is now
-- `"metric"{"k1":"v1","k2":"v2"}`: each text in double quotes with `\` and `"` escaped, labels
-- sorted by name (dashboard/store/writes.py::_series_key builds the same text). This rewrites every
-- stored key from the row's own metric and labels, so series already stored keep matching; rows
-- already in the new form are left alone, so running it again changes nothing.
UPDATE series
SET series_key = new_key
FROM (
    SELECT series_id AS id,
           '"' || replace(replace(metric, '\', '\\'), '"', '\"') || '"{'
           || array_to_string(
                  list_transform(
                      list_sort(map_entries(labels)),
                      lambda e: '"' || replace(replace(e.key, '\', '\\'), '"', '\"') || '":"'
                                || replace(replace(e.value, '\', '\\'), '"', '\"') || '"'
                  ),
                  ','
              )
           || '}' AS new_key
    FROM series
) AS rekeyed
WHERE series.series_id = rekeyed.id AND series.series_key IS DISTINCT FROM rekeyed.new_key;
