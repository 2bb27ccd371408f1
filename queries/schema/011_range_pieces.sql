-- 011_range_pieces: per-series totals over one range (t_start, t_end], in a form two adjacent
-- ranges can be joined by: the increase over consecutive finite samples inside, the first and last
-- finite value, and the number of finite and of non-finite samples. The increase over (a, c] is
-- then increase(a, b] + increase(b, c] + the pair joining the last finite sample of (a, b] to the
-- first of (b, c] (v − prev, or v after a drop), exactly the pairs raw_window_increases sums over
-- (a, c] as one window; so a headline over a long range is kept and only its newest part is read
-- again on an auto-refresh tick (services/range_totals.py).
-- range_pieces(lists, t_start, t_end) takes several name lists at once (one macro expansion for a
-- query's every metric: planning it is most of the cost of a short range) and picks, per list,
-- each pod's newest name variant, as window_increases does for its one list.
-- Columns of every range_pieces macro: list_id BIGINT (1-based, into lists), series_id BIGINT,
-- pod VARCHAR, le DOUBLE, increase DOUBLE, first_finite DOUBLE, last_finite DOUBLE (NULL: no
-- finite sample), num_finite BIGINT, num_skipped BIGINT (NaN and ±Inf samples); one row per chosen
-- series with a sample in the range.

CREATE OR REPLACE MACRO range_chosen(lists) AS TABLE
WITH names AS (
    SELECT list_id, unnest(lists[list_id]) AS metric, generate_subscripts(lists[list_id], 1) AS name_rank
    FROM range(1, len(lists) + 1) AS r(list_id)
)
SELECT n.list_id, s.series_id, s.pod, s.le
FROM series s
JOIN names n USING (metric)
QUALIFY n.name_rank = min(n.name_rank) OVER (PARTITION BY n.list_id, s.pod);

CREATE OR REPLACE MACRO raw_range_pieces(lists, t_start, t_end) AS TABLE
WITH chosen AS (
    SELECT * FROM range_chosen(lists)
),
points AS (
    SELECT x.series_id, x.ts, x.value, isfinite(x.value) AS is_finite,
           lag(CASE WHEN isfinite(x.value) THEN x.value END IGNORE NULLS)
               OVER (PARTITION BY x.series_id ORDER BY x.ts) AS prev_finite
    FROM samples x
    WHERE x.series_id IN (SELECT series_id FROM chosen) AND x.ts > t_start AND x.ts <= t_end
),
per_series AS (
    SELECT series_id,
           coalesce(sum(CASE WHEN value >= prev_finite THEN value - prev_finite ELSE value END)
                        FILTER (WHERE is_finite AND prev_finite IS NOT NULL), 0.0) AS increase,
           arg_min(value, ts) FILTER (WHERE is_finite) AS first_finite,
           arg_max(value, ts) FILTER (WHERE is_finite) AS last_finite,
           count(*) FILTER (WHERE is_finite) AS num_finite,
           count(*) FILTER (WHERE NOT is_finite) AS num_skipped
    FROM points
    GROUP BY series_id
)
SELECT c.list_id, c.series_id, c.pod, c.le, p.increase, p.first_finite, p.last_finite,
       CAST(p.num_finite AS BIGINT) AS num_finite, CAST(p.num_skipped AS BIGINT) AS num_skipped
FROM per_series p
JOIN chosen c USING (series_id);

-- The same from blocks of block_s seconds (block_s divides t_start and t_end) up to
-- blocks_through(), and from the samples after it, each a piece of its own (every sample when
-- block_s is NULL): a piece's inner increase plus the pair joining it to the previous piece with
-- finite samples, as block_window_increases adds them inside one window.
CREATE OR REPLACE MACRO block_range_pieces(lists, t_start, t_end, block_s) AS TABLE
WITH chosen AS (
    SELECT * FROM range_chosen(lists)
),
pieces AS (
    SELECT b.series_id, b.block_end AS piece_end, b.num_samples, b.num_finite,
           coalesce(b.first_finite, b.first_value) AS first_finite,
           coalesce(b.last_finite, b.last_value) AS last_finite, b.increase
    FROM sample_blocks b
    WHERE b.series_id IN (SELECT series_id FROM chosen)
      AND b.level_s = block_s AND b.block_end > t_start AND b.block_end <= least(t_end, blocks_through())
    UNION ALL
    SELECT x.series_id, x.ts, 1, CASE WHEN isfinite(x.value) THEN 1 ELSE 0 END, x.value, x.value, 0.0
    FROM samples x
    WHERE x.series_id IN (SELECT series_id FROM chosen)
      AND x.ts > greatest(t_start, blocks_until(block_s)) AND x.ts <= t_end
),
pairs AS (
    SELECT *, lag(CASE WHEN num_finite > 0 THEN last_finite END IGNORE NULLS)
                  OVER (PARTITION BY series_id ORDER BY piece_end) AS prev_finite
    FROM pieces
),
per_series AS (
    SELECT series_id,
           coalesce(sum(increase) FILTER (WHERE num_finite > 0), 0.0) + coalesce(
               sum(CASE WHEN first_finite >= prev_finite THEN first_finite - prev_finite ELSE first_finite END)
                   FILTER (WHERE num_finite > 0 AND prev_finite IS NOT NULL),
               0.0) AS increase,
           arg_min(first_finite, piece_end) FILTER (WHERE num_finite > 0) AS first_finite,
           arg_max(last_finite, piece_end) FILTER (WHERE num_finite > 0) AS last_finite,
           sum(num_finite) AS num_finite,
           sum(num_samples - num_finite) AS num_skipped
    FROM pairs
    GROUP BY series_id
)
SELECT c.list_id, c.series_id, c.pod, c.le, p.increase, p.first_finite, p.last_finite,
       CAST(p.num_finite AS BIGINT) AS num_finite, CAST(p.num_skipped AS BIGINT) AS num_skipped
FROM per_series p
JOIN chosen c USING (series_id);

-- range_pieces: the entry point (write/rollups_on.sql and rollups_off.sql switch it with the others).
CREATE OR REPLACE MACRO range_pieces(lists, t_start, t_end) AS TABLE
SELECT * FROM block_range_pieces(lists, t_start, t_end, edge_level(t_start, t_end, NULL));
