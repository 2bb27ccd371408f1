-- annotations_insert: append annotation rows registered as `incoming`.
-- Params: none. Grain: one row per annotation.
INSERT INTO annotations SELECT ts, kind, text FROM incoming
