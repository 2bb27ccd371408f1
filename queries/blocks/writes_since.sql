-- writes_since: what the sample writes after write $since changed: the newest write, the earliest
-- ts they stored and how many series they added (a cache of closed windows checks it).
-- Params:
--   $since BIGINT  a write_id seen before (0: from the start)
-- Grain: one row.
-- Columns: last_write_id BIGINT, lo TIMESTAMP, num_new_series BIGINT
SELECT CAST(coalesce(max(write_id), $since) AS BIGINT) AS last_write_id, min(lo) AS lo,
       CAST(coalesce(sum(num_new_series), 0) AS BIGINT) AS num_new_series
FROM sample_writes
WHERE write_id > $since
