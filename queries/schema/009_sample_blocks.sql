-- 009_sample_blocks: per-block summaries of every series (rollups), so windowed queries over long
-- ranges read blocks instead of samples and give the same answers; and a log of sample writes,
-- so a cache of closed windows knows which of them a write could have changed.
--
-- sample_blocks: one row per level × series × block. A block of level L ends on a multiple of L
-- seconds since 1970 and holds the samples with ts in (block_end − L, block_end]. Every column is
-- a function of that block's own samples only, and the pair joining two blocks is formed when a
-- query reads them (lag over blocks). Levels 60, 300 and 1800 s; a window grid whose start, step
-- and end are multiples of a level reads that level (the Overview's steps are,
-- core/selection.py), any other grid reads samples as before.
-- Blocks exist for every sample up to blocks_through() (a multiple of 1800 s) and for none
-- after it: queries read the samples after it, each as a block of its own. The writer rolls the
-- mark forward as whole 30 minutes fill (store/blocks.py: roll_up), and a write that stores a
-- sample at or before it recomputes the blocks it touched, so blocks always agree with samples.
CREATE TABLE sample_blocks (
    level_s      INTEGER NOT NULL,    -- block length: 60, 300 or 1800 s
    series_id    BIGINT NOT NULL,
    block_end    TIMESTAMP NOT NULL,  -- UTC; the block holds ts in (block_end − level_s, block_end]
    num_samples  INTEGER NOT NULL,    -- every sample, NaN and ±Inf included
    num_finite   INTEGER NOT NULL,
    first_ts     TIMESTAMP NOT NULL,
    last_ts      TIMESTAMP NOT NULL,
    first_value  DOUBLE NOT NULL,     -- of the first and last sample, finite or not
    last_value   DOUBLE NOT NULL,
    first_finite DOUBLE,              -- of the first and last finite sample; NULL when that is
    last_finite  DOUBLE,              -- first_value / last_value (or num_finite = 0): half the bytes
    increase     DOUBLE NOT NULL,     -- Σ over consecutive finite samples inside: v − prev, or v after a drop
    num_drops    INTEGER NOT NULL,    -- consecutive samples inside with v < prev (a counter reset)
    gap_min_us   BIGINT,              -- shortest and longest gap between consecutive samples inside
    gap_max_us   BIGINT               -- (NULL: one sample); equal in a block scraped on a fixed grid
);

-- sample_writes: one row per write that stored new samples: the span of their timestamps and
-- whether it registered new series. A result computed from windows ending at or before T stays
-- right while every later write starts after T and adds no series.
CREATE SEQUENCE sample_write_id_seq START 1;
CREATE TABLE sample_writes (
    write_id        BIGINT PRIMARY KEY DEFAULT nextval('sample_write_id_seq'),
    lo              TIMESTAMP NOT NULL,  -- earliest ts stored by the write
    hi              TIMESTAMP NOT NULL,  -- latest
    num_samples     BIGINT NOT NULL,
    num_new_series  BIGINT NOT NULL,
    written_at      TIMESTAMP NOT NULL DEFAULT current_timestamp
);

-- blocks_through(): blocks hold every sample up to this ts and none after it (write/blocks_through.sql
-- moves it). A constant, so each query's filters on it prune row groups like any other constant.
CREATE OR REPLACE MACRO blocks_through() AS TIMESTAMP '1970-01-01 00:00:00';

-- blocks_until(block_s): the mark a read at level block_s uses: no blocks at all when no level
-- fits (block_s NULL: every sample is read, each as a piece of its own).
CREATE OR REPLACE MACRO blocks_until(block_s) AS
    CASE WHEN block_s IS NULL THEN TIMESTAMP '1970-01-01 00:00:00' ELSE blocks_through() END;

-- block_end_of(ts, level_s): the end of the level_s block holding ts.
CREATE OR REPLACE MACRO block_end_of(ts, level_s) AS
    make_timestamp(CAST(ceil(epoch_us(ts) / (level_s * 1e6)) * (level_s * 1e6) AS BIGINT));

-- edge_level(t_start, t_end, step_s): the largest level dividing t_start, t_end and step_s (a NULL
-- edge or step divides all), so every block lies inside one window; NULL: read samples.
-- NOTE: one gcd, not a test per level: a query expands this once per macro call it makes.
CREATE OR REPLACE MACRO edge_level(t_start, t_end, step_s) AS
    list_filter(
        [1800, 300, 60],
        lambda l: gcd(
            gcd(coalesce(epoch_us(CAST(t_start AS TIMESTAMP)), 0), coalesce(epoch_us(CAST(t_end AS TIMESTAMP)), 0)),
            coalesce(CAST(CAST(step_s AS DOUBLE) * 1e6 AS BIGINT), 0)
        ) % (l * 1000000) = 0
    )[1];

-- block_rows(t_lo, t_hi): the sample_blocks rows of every level for the samples in (t_lo, t_hi]
-- (both multiples of 1800 s, so every block is whole). Pairs are consecutive samples of a series;
-- the finite pairs skip NaN and ±Inf samples, as raw_window_increases does. The 60 s blocks are
-- made from the samples; the 300 and 1800 s blocks from the 60 s ones, each adding the pairs that
-- join one 60 s block to the one before it inside the larger block (a third of the work).
-- NOTE: a block keeps its shortest and longest gap, not their histogram (5× the cost of the rest
-- of the row); a block whose gaps differ (jittered scrapes) is read from its samples when the
-- scrape interval is asked for (010's scrape_gaps).
CREATE OR REPLACE MACRO block_rows(t_lo, t_hi) AS TABLE
WITH pairs AS (
    SELECT series_id, ts, value, isfinite(value) AS is_finite, epoch_us(ts) AS us,
           CAST(ceil(epoch_us(ts) / 60e6) AS BIGINT) AS block,
           CAST(ceil(epoch_us(lag(ts) OVER w) / 60e6) AS BIGINT) AS prev_block,
           epoch_us(ts) - epoch_us(lag(ts) OVER w) AS gap_us,
           lag(value) OVER w AS prev_value,
           CAST(ceil(epoch_us(lag(CASE WHEN isfinite(value) THEN ts END IGNORE NULLS) OVER w) / 60e6) AS BIGINT)
               AS prev_finite_block,
           lag(CASE WHEN isfinite(value) THEN value END IGNORE NULLS) OVER w AS prev_finite
    FROM samples
    WHERE ts > t_lo AND ts <= t_hi
    WINDOW w AS (PARTITION BY series_id ORDER BY ts)
),
minute AS MATERIALIZED (
    SELECT series_id, block,
           count(*) AS num_samples,
           count(*) FILTER (WHERE is_finite) AS num_finite,
           min(ts) AS first_ts,
           max(ts) AS last_ts,
           arg_min(value, us) AS first_value,
           arg_max(value, us) AS last_value,
           arg_min(value, us) FILTER (WHERE is_finite) AS first_finite,
           arg_max(value, us) FILTER (WHERE is_finite) AS last_finite,
           coalesce(sum(CASE WHEN value >= prev_finite THEN value - prev_finite ELSE value END)
                        FILTER (WHERE is_finite AND prev_finite_block = block), 0.0) AS increase,
           count(*) FILTER (WHERE prev_block = block AND value < prev_value) AS num_drops,
           min(gap_us) FILTER (WHERE prev_block = block) AS gap_min_us,
           max(gap_us) FILTER (WHERE prev_block = block) AS gap_max_us
    FROM pairs
    GROUP BY series_id, block
),
joined AS (
    -- Each 60 s block with what joins it to the previous one: the last sample and the last finite
    -- sample before it (and the blocks holding them), for the 300 and 1800 s blocks above it.
    SELECT m.*, l.level_s,
           CAST(ceil(block * 60 / l.level_s) AS BIGINT) AS parent,
           CAST(ceil(lag(block) OVER w * 60 / l.level_s) AS BIGINT) AS prev_parent,
           lag(last_value) OVER w AS prev_last,
           epoch_us(first_ts) - epoch_us(lag(last_ts) OVER w) AS cross_gap_us,
           CAST(ceil(lag(CASE WHEN num_finite > 0 THEN block END IGNORE NULLS) OVER w * 60 / l.level_s) AS BIGINT)
               AS prev_finite_parent,
           lag(last_finite IGNORE NULLS) OVER w AS prev_last_finite
    FROM minute m
    CROSS JOIN (VALUES (300), (1800)) AS l(level_s)
    WINDOW w AS (PARTITION BY l.level_s, m.series_id ORDER BY m.block)
),
blocks AS (
    SELECT 60 AS level_s, series_id, block, num_samples, num_finite, first_ts, last_ts, first_value,
           last_value, first_finite, last_finite, increase, num_drops, gap_min_us, gap_max_us
    FROM minute
    UNION ALL
    SELECT level_s, series_id, parent,
           sum(num_samples), sum(num_finite), min(first_ts), max(last_ts),
           arg_min(first_value, first_ts), arg_max(last_value, last_ts),
           arg_min(first_finite, first_ts) FILTER (WHERE num_finite > 0),
           arg_max(last_finite, last_ts) FILTER (WHERE num_finite > 0),
           sum(increase) + coalesce(
               sum(CASE WHEN first_finite >= prev_last_finite THEN first_finite - prev_last_finite
                        ELSE first_finite END) FILTER (WHERE num_finite > 0 AND prev_finite_parent = parent),
               0.0),
           sum(num_drops) + count(*) FILTER (WHERE prev_parent = parent AND first_value < prev_last),
           least(min(gap_min_us), min(cross_gap_us) FILTER (WHERE prev_parent = parent)),
           greatest(max(gap_max_us), max(cross_gap_us) FILTER (WHERE prev_parent = parent))
    FROM joined
    GROUP BY level_s, series_id, parent
)
SELECT level_s, series_id,
       make_timestamp(CAST(block * level_s * 1000000 AS BIGINT)) AS block_end,
       CAST(num_samples AS INTEGER) AS num_samples,
       CAST(num_finite AS INTEGER) AS num_finite,
       first_ts, last_ts, first_value, last_value,
       CASE WHEN NOT isfinite(first_value) THEN first_finite END AS first_finite,
       CASE WHEN NOT isfinite(last_value) THEN last_finite END AS last_finite,
       increase,
       CAST(num_drops AS INTEGER) AS num_drops,
       gap_min_us, gap_max_us
FROM blocks;

-- raw_window_increases / raw_window_last: 008's window_increases and 005's window_last as they
-- were (parameters, grain and columns there), the answers every block path must equal.
CREATE OR REPLACE MACRO raw_window_increases(names, t_start, t_end, step_s) AS TABLE
WITH candidates AS (
    SELECT series_id, metric, pod, labels, le, list_position(names, metric) AS name_rank
    FROM series
    WHERE list_contains(names, metric)
),
newest AS (
    SELECT pod, min(name_rank) AS name_rank FROM candidates GROUP BY pod
),
chosen AS (
    SELECT c.*
    FROM candidates c
    JOIN newest n ON c.pod IS NOT DISTINCT FROM n.pod AND c.name_rank = n.name_rank
),
points AS (
    SELECT c.series_id, c.metric, c.pod, c.labels, c.le, x.ts, x.value,
           CAST(ceil((epoch_us(x.ts) - epoch_us(t_start)) / (step_s * 1e6)) AS BIGINT) AS k
    FROM samples x
    JOIN chosen c USING (series_id)
    WHERE x.ts > t_start - to_microseconds(CAST(step_s * 1e6 AS BIGINT))
      AND x.ts <= t_end
      AND isfinite(x.value)
),
pairs AS (
    SELECT *,
           lag(value) OVER w AS prev_value,
           lag(k) OVER w AS prev_k
    FROM points
    WINDOW w AS (PARTITION BY series_id ORDER BY ts)
)
SELECT t_start + to_microseconds(CAST(k * step_s * 1e6 AS BIGINT)) AS ts,
       series_id, any_value(metric) AS metric, any_value(pod) AS pod, any_value(labels) AS labels,
       any_value(le) AS le,
       sum(CASE WHEN value >= prev_value THEN value - prev_value ELSE value END) AS increase,
       count(*) + 1 AS num_samples
FROM pairs
WHERE prev_k = k
GROUP BY k, series_id;

CREATE OR REPLACE MACRO raw_window_last(names, t_start, t_end, step_s) AS TABLE
WITH candidates AS (
    SELECT series_id, metric, pod, labels, list_position(names, metric) AS name_rank
    FROM series
    WHERE list_contains(names, metric)
),
newest AS (
    SELECT pod, min(name_rank) AS name_rank FROM candidates GROUP BY pod
),
points AS (
    SELECT c.series_id, c.metric, c.pod, c.labels, x.ts AS sample_ts, x.value,
           CAST(ceil((epoch_us(x.ts) - epoch_us(t_start)) / (step_s * 1e6)) AS BIGINT) AS k
    FROM samples x
    JOIN candidates c USING (series_id)
    JOIN newest n ON c.pod IS NOT DISTINCT FROM n.pod AND c.name_rank = n.name_rank
    WHERE x.ts > t_start - to_microseconds(CAST(step_s * 1e6 AS BIGINT))
      AND x.ts <= t_end
)
SELECT t_start + to_microseconds(CAST(k * step_s * 1e6 AS BIGINT)) AS ts,
       series_id, any_value(metric) AS metric, any_value(pod) AS pod, any_value(labels) AS labels,
       arg_max(value, sample_ts) AS value
FROM points
GROUP BY k, series_id;

-- The same two from blocks of block_s seconds (block_s divides t_start, t_end and step_s, so each
-- block lies in one window k) up to blocks_through(), and from the samples after it, each sample
-- a piece of its own (every sample, when block_s is NULL: no level fits the grid).
-- NOTE: one level per read; taking 30-minute blocks inside a day-long window and finer ones at
-- its edges read a fifth of the rows but cost more to plan than it saved (a query expands this
-- macro once per name list: hit_rate six times). A window's increase is its pieces' inner increases plus each pair joining a
-- piece to the previous piece with finite samples when that one is in the same window: exactly
-- the consecutive finite pairs inside the window that raw_window_increases sums.
CREATE OR REPLACE MACRO block_window_increases(names, t_start, t_end, step_s, block_s) AS TABLE
WITH candidates AS (
    SELECT series_id, metric, pod, labels, le, list_position(names, metric) AS name_rank
    FROM series
    WHERE list_contains(names, metric)
),
chosen AS (
    SELECT * FROM candidates QUALIFY name_rank = min(name_rank) OVER (PARTITION BY pod)
),
pieces AS (
    SELECT c.series_id, c.metric, c.pod, c.labels, c.le, b.block_end AS piece_end, b.num_finite,
           coalesce(b.first_finite, b.first_value) AS first_finite,
           coalesce(b.last_finite, b.last_value) AS last_finite, b.increase
    FROM sample_blocks b
    JOIN chosen c USING (series_id)
    WHERE b.level_s = block_s
      AND b.block_end > t_start - to_microseconds(CAST(step_s * 1e6 AS BIGINT))
      AND b.block_end <= least(t_end, blocks_through())
      AND b.num_finite > 0
    UNION ALL
    SELECT c.series_id, c.metric, c.pod, c.labels, c.le, x.ts, 1, x.value, x.value, 0.0
    FROM samples x
    JOIN chosen c USING (series_id)
    WHERE x.ts > greatest(t_start - to_microseconds(CAST(step_s * 1e6 AS BIGINT)), blocks_until(block_s))
      AND x.ts <= t_end
      AND isfinite(x.value)
),
windowed AS (
    SELECT *, CAST(ceil((epoch_us(piece_end) - epoch_us(t_start)) / (step_s * 1e6)) AS BIGINT) AS k
    FROM pieces
),
pairs AS (
    SELECT *, lag(last_finite) OVER w AS prev_finite, lag(k) OVER w AS prev_k
    FROM windowed
    WINDOW w AS (PARTITION BY series_id ORDER BY piece_end)
)
SELECT t_start + to_microseconds(CAST(k * step_s * 1e6 AS BIGINT)) AS ts,
       series_id, any_value(metric) AS metric, any_value(pod) AS pod, any_value(labels) AS labels,
       any_value(le) AS le,
       sum(increase) + coalesce(
           sum(CASE WHEN first_finite >= prev_finite THEN first_finite - prev_finite ELSE first_finite END)
               FILTER (WHERE prev_k = k),
           0.0) AS increase,
       CAST(sum(num_finite) AS BIGINT) AS num_samples
FROM pairs
GROUP BY k, series_id
HAVING sum(num_finite) >= 2;

CREATE OR REPLACE MACRO block_window_last(names, t_start, t_end, step_s, block_s) AS TABLE
WITH candidates AS (
    SELECT series_id, metric, pod, labels, list_position(names, metric) AS name_rank
    FROM series
    WHERE list_contains(names, metric)
),
chosen AS (
    SELECT * FROM candidates QUALIFY name_rank = min(name_rank) OVER (PARTITION BY pod)
),
pieces AS (
    SELECT b.series_id, b.block_end AS piece_end, b.last_ts, b.last_value
    FROM sample_blocks b
    JOIN chosen c USING (series_id)
    WHERE b.level_s = block_s
      AND b.block_end > t_start - to_microseconds(CAST(step_s * 1e6 AS BIGINT))
      AND b.block_end <= least(t_end, blocks_through())
    UNION ALL
    SELECT x.series_id, x.ts, x.ts, x.value
    FROM samples x
    JOIN chosen c USING (series_id)
    WHERE x.ts > greatest(t_start - to_microseconds(CAST(step_s * 1e6 AS BIGINT)), blocks_until(block_s))
      AND x.ts <= t_end
)
SELECT t_start + to_microseconds(CAST(
           ceil((epoch_us(p.piece_end) - epoch_us(t_start)) / (step_s * 1e6)) * step_s * 1e6 AS BIGINT)) AS ts,
       p.series_id, any_value(c.metric) AS metric, any_value(c.pod) AS pod, any_value(c.labels) AS labels,
       arg_max(p.last_value, p.last_ts) AS value
FROM pieces p
JOIN chosen c USING (series_id)
GROUP BY 1, p.series_id;

-- window_increases / window_last: the one entry point each query calls (same parameters, grain
-- and columns as the raw_ macros). With rollups on (here, and write/rollups_on.sql) they read
-- blocks where a level fits the grid; write/rollups_off.sql points them at the raw_ macros (a
-- Parquet source; the tests' truth). One body each, so DuckDB plans one path per call.
CREATE OR REPLACE MACRO window_increases(names, t_start, t_end, step_s) AS TABLE
SELECT * FROM block_window_increases(names, t_start, t_end, step_s, edge_level(t_start, t_end, step_s));

CREATE OR REPLACE MACRO window_last(names, t_start, t_end, step_s) AS TABLE
SELECT * FROM block_window_last(names, t_start, t_end, step_s, edge_level(t_start, t_end, step_s));
