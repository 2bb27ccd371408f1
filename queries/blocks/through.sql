-- through: the blocks_through() mark alone (migration 009): what a write needs to know whether it
-- stored a sample some block already covers (roll_state's newest sample scans every row group).
-- Params: none.
-- Grain: one row.
-- Columns: through TIMESTAMP
SELECT blocks_through() AS through
