-- migrations/record: mark one migration applied, in the transaction that applied it.
-- Params:
--   $version INTEGER  the migration's number (its file's first three digits)
--   $name VARCHAR  the migration file's stem
INSERT INTO schema_migrations (version, name) VALUES ($version, $name)
