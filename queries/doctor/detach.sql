-- detach: detach the damaged store attached by doctor/attach.
-- Grain: no rows.
-- Columns: none
DETACH damaged
