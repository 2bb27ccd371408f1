-- roll_state: where the sample blocks stand: the blocks_through() mark (migration 009), the first
-- sample after it and the newest sample (a roll-up makes the blocks between).
-- Params: none.
-- Grain: one row.
-- Columns: through TIMESTAMP, first_after TIMESTAMP, newest TIMESTAMP
SELECT blocks_through() AS through,
       (SELECT min(ts) FROM samples WHERE ts > blocks_through()) AS first_after,
       (SELECT max(ts) FROM samples) AS newest
