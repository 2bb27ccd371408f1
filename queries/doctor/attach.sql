-- attach: attach the damaged store read-only as `damaged` (ATTACH takes no bound parameters).
-- Identifiers: {path} is the store's absolute path as a quoted SQL literal (quotes doubled by the
-- store layer).
-- Grain: no rows.
-- Columns: none
ATTACH {path} AS damaged (READ_ONLY)
