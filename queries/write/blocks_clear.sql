-- blocks_clear: drop every sample block, before blocks_insert rebuilds them all (a salvaged store).
-- Params: none.
-- Grain: the DELETE's row count.
DELETE FROM sample_blocks
