-- migrations/record: mark one migration applied, in the transaction that applied it.
-- Params: $version INTEGER, $name VARCHAR (the file's stem)
INSERT INTO schema_migrations (version, name) VALUES ($version, $name)
