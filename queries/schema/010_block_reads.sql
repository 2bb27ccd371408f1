-- 010_block_reads: the store-wide reads that scanned every sample (time bounds, newest sample per
-- series, the scrape interval, counter resets), each answered from sample_blocks (009) up to
-- blocks_through() and from the samples after it (where a range is asked for, when its edges fall
-- on a level), and from samples alone by its raw_ twin; the same answers either way.

-- sample_bounds(): first and last sample time, number of samples and of series holding samples.
-- Columns: first_ts TIMESTAMP, last_ts TIMESTAMP, num_samples BIGINT, num_series BIGINT.
CREATE OR REPLACE MACRO raw_sample_bounds() AS TABLE
SELECT min(ts) AS first_ts, max(ts) AS last_ts, count(*) AS num_samples, count(DISTINCT series_id) AS num_series
FROM samples;

CREATE OR REPLACE MACRO block_sample_bounds() AS TABLE
SELECT min(first_ts) AS first_ts, max(last_ts) AS last_ts,
       CAST(coalesce(sum(num_samples), 0) AS BIGINT) AS num_samples, count(DISTINCT series_id) AS num_series
FROM (
    SELECT series_id, first_ts, last_ts, num_samples
    FROM sample_blocks
    WHERE level_s = 1800 AND block_end <= blocks_through()
    UNION ALL
    SELECT series_id, ts, ts, 1 FROM samples WHERE ts > blocks_through()
);

-- series_last_ts(names): the newest sample time of each series whose metric is in names.
-- Columns: series_id BIGINT, last_ts TIMESTAMP.
CREATE OR REPLACE MACRO raw_series_last_ts(names) AS TABLE
SELECT x.series_id, max(x.ts) AS last_ts
FROM samples x
JOIN series s USING (series_id)
WHERE list_contains(names, s.metric)
GROUP BY x.series_id;

CREATE OR REPLACE MACRO block_series_last_ts(names) AS TABLE
WITH chosen AS (
    SELECT series_id FROM series WHERE list_contains(names, metric)
)
SELECT series_id, max(last_ts) AS last_ts
FROM (
    SELECT b.series_id, b.last_ts FROM sample_blocks b JOIN chosen USING (series_id)
    WHERE b.level_s = 1800 AND b.block_end <= blocks_through()
    UNION ALL
    SELECT x.series_id, x.ts FROM samples x JOIN chosen USING (series_id) WHERE x.ts > blocks_through()
)
GROUP BY series_id;

-- scrape_gaps(names, t_start, t_end): how many times each gap (µs) separates consecutive samples of
-- the series of names inside (t_start, t_end] (a NULL edge is unbounded).
-- Columns: gap_us BIGINT, num_gaps BIGINT.
CREATE OR REPLACE MACRO raw_scrape_gaps(names, t_start, t_end) AS TABLE
WITH chosen AS (
    SELECT series_id FROM series WHERE list_contains(names, metric)
),
gaps AS (
    SELECT epoch_us(ts) - lag(epoch_us(ts)) OVER (PARTITION BY series_id ORDER BY ts) AS gap_us
    FROM samples
    JOIN chosen USING (series_id)
    WHERE (t_start IS NULL OR ts > t_start) AND (t_end IS NULL OR ts <= t_end)
)
SELECT gap_us, count(*) AS num_gaps FROM gaps WHERE gap_us IS NOT NULL GROUP BY gap_us;

-- NOTE: a block whose gaps are all equal counts num_samples − 1 of them; one whose gaps differ
-- (jittered scrapes) is read from its own samples; a sample after blocks_through() is a piece
-- of its own.
CREATE OR REPLACE MACRO block_scrape_gaps(names, t_start, t_end, block_s) AS TABLE
WITH chosen AS (
    SELECT series_id FROM series WHERE list_contains(names, metric)
),
pieces AS (
    SELECT b.series_id, b.block_end AS piece_end, b.num_samples, b.first_ts, b.last_ts, b.gap_min_us,
           b.gap_max_us
    FROM sample_blocks b
    JOIN chosen USING (series_id)
    WHERE b.level_s = block_s
      AND (t_start IS NULL OR b.block_end > t_start)
      AND b.block_end <= least(coalesce(t_end, blocks_through()), blocks_through())
    UNION ALL
    SELECT x.series_id, x.ts, 1, x.ts, x.ts, NULL, NULL
    FROM samples x
    JOIN chosen USING (series_id)
    WHERE x.ts > greatest(coalesce(t_start, blocks_until(block_s)), blocks_until(block_s))
      AND (t_end IS NULL OR x.ts <= t_end)
),
joined AS (
    SELECT *, lag(last_ts) OVER (PARTITION BY series_id ORDER BY piece_end) AS prev_last_ts FROM pieces
),
irregular AS (
    SELECT series_id, piece_end FROM joined WHERE gap_min_us < gap_max_us
),
inside AS (
    SELECT epoch_us(x.ts) - lag(epoch_us(x.ts)) OVER (PARTITION BY x.series_id, i.piece_end ORDER BY x.ts)
               AS gap_us
    FROM samples x
    JOIN irregular i
      ON x.series_id = i.series_id
     AND x.ts > i.piece_end - to_microseconds(CAST(block_s * 1000000 AS BIGINT))
     AND x.ts <= i.piece_end
),
gaps AS (
    SELECT gap_min_us AS gap_us, num_samples - 1 AS num_gaps FROM joined WHERE gap_min_us = gap_max_us
    UNION ALL
    SELECT gap_us, 1 FROM inside WHERE gap_us IS NOT NULL
    UNION ALL
    -- NOTE: the gap from the previous piece's last sample to this piece's first one
    SELECT epoch_us(first_ts) - epoch_us(prev_last_ts), 1 FROM joined WHERE prev_last_ts IS NOT NULL
)
SELECT gap_us, CAST(sum(num_gaps) AS BIGINT) AS num_gaps FROM gaps GROUP BY gap_us;

-- counter_drops(names, t_start, t_end): every sample in (t_start, t_end] of the series of names
-- that is lower than the sample before it (a restart), however long before that one is.
-- Columns: ts TIMESTAMP, series_id BIGINT, value_before DOUBLE, value_after DOUBLE.
CREATE OR REPLACE MACRO raw_counter_drops(names, t_start, t_end) AS TABLE
WITH points AS (
    SELECT x.series_id, x.ts, x.value,
           lag(x.value) OVER (PARTITION BY x.series_id ORDER BY x.ts) AS prev_value
    FROM samples x
    JOIN series s USING (series_id)
    WHERE list_contains(names, s.metric) AND x.ts <= t_end
)
SELECT ts, series_id, prev_value AS value_before, value AS value_after
FROM points
WHERE ts > t_start AND value < prev_value;

-- NOTE: a drop between two pieces is read from the pieces; a drop inside a block (num_drops > 0,
-- rare: restarts) from that block's samples alone.
CREATE OR REPLACE MACRO block_counter_drops(names, t_start, t_end, block_s) AS TABLE
WITH chosen AS (
    SELECT series_id FROM series WHERE list_contains(names, metric)
),
pieces AS (
    SELECT b.series_id, b.block_end AS piece_end, b.first_ts, b.first_value, b.last_value, b.num_drops
    FROM sample_blocks b
    JOIN chosen USING (series_id)
    WHERE b.level_s = block_s AND b.block_end <= least(t_end, blocks_through())
    UNION ALL
    SELECT x.series_id, x.ts, x.ts, x.value, x.value, 0
    FROM samples x
    JOIN chosen USING (series_id)
    WHERE x.ts > blocks_until(block_s) AND x.ts <= t_end
),
joined AS (
    SELECT *, lag(last_value) OVER (PARTITION BY series_id ORDER BY piece_end) AS prev_last FROM pieces
),
flagged AS (
    SELECT series_id, piece_end FROM joined WHERE piece_end > t_start AND num_drops > 0
),
inside AS (
    SELECT x.series_id, x.ts, x.value,
           lag(x.value) OVER (PARTITION BY x.series_id, f.piece_end ORDER BY x.ts) AS prev_value
    FROM samples x
    JOIN flagged f
      ON x.series_id = f.series_id
     AND x.ts > f.piece_end - to_microseconds(CAST(block_s * 1000000 AS BIGINT))
     AND x.ts <= f.piece_end
)
SELECT first_ts AS ts, series_id, prev_last AS value_before, first_value AS value_after
FROM joined
WHERE piece_end > t_start AND first_value < prev_last
UNION ALL
SELECT ts, series_id, prev_value, value FROM inside WHERE value < prev_value;

-- The entry points the queries call: blocks where the range's edges fall on a level (a sample
-- after blocks_through() is a piece of its own, every sample when none fits), samples with rollups
-- off (write/rollups_off.sql points each at its raw_ twin).
CREATE OR REPLACE MACRO sample_bounds() AS TABLE SELECT * FROM block_sample_bounds();

CREATE OR REPLACE MACRO series_last_ts(names) AS TABLE SELECT * FROM block_series_last_ts(names);

CREATE OR REPLACE MACRO scrape_gaps(names, t_start, t_end) AS TABLE
SELECT * FROM block_scrape_gaps(names, t_start, t_end, edge_level(t_start, t_end, NULL));

CREATE OR REPLACE MACRO counter_drops(names, t_start, t_end) AS TABLE
SELECT * FROM block_counter_drops(names, t_start, t_end, edge_level(t_start, t_end, NULL));
