-- migrations/applied: the versions already applied. Columns: version INTEGER
SELECT version FROM schema_migrations
