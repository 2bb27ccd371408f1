-- blocks_through: move the mark up to which sample blocks exist (migration 009), in the
-- transaction that wrote them. A macro holding a constant, so queries prune on it at planning.
-- Identifiers: {through} a TIMESTAMP literal the store layer formats from a datetime (never user text).
-- Params: none.
CREATE OR REPLACE MACRO blocks_through() AS TIMESTAMP '{through}'
