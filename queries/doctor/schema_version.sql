-- schema_version: the newest migration applied to the store.
-- Grain: one row.
-- Columns: version INTEGER (NULL when none is recorded)
SELECT max(version) AS version
FROM schema_migrations
