-- 002_traces: request traces imported with `kvscope import-trace`, for replays by name and SQL.
-- traces: one row per imported trace (name is unique); counts as read, block_tokens per block.
-- trace_requests: one row per request, idx = position in arrival order (0-based), arrival_s
--   seconds since the trace start, block_ids the dense chained block ids (0..num_blocks-1) in
--   head-first order; session_id/turn/type/tenant_id NULL when the source does not say.
CREATE TABLE traces (
    trace_id            INTEGER PRIMARY KEY,
    name                VARCHAR NOT NULL UNIQUE,
    format              VARCHAR NOT NULL,
    source_path         VARCHAR NOT NULL,
    block_tokens        INTEGER NOT NULL,
    num_requests        BIGINT NOT NULL,
    num_block_accesses  BIGINT NOT NULL,
    num_blocks          BIGINT NOT NULL,
    type_names          VARCHAR[] NOT NULL,  -- type codes index this list
    has_tenants         BOOLEAN NOT NULL,
    imported_at         TIMESTAMP NOT NULL   -- UTC
);

CREATE TABLE trace_requests (
    trace_id       INTEGER NOT NULL,
    idx            BIGINT NOT NULL,
    arrival_s      DOUBLE NOT NULL,
    session_id     BIGINT,
    turn           INTEGER,
    type           VARCHAR,
    tenant_id      INTEGER,
    input_tokens   BIGINT NOT NULL,
    output_tokens  BIGINT NOT NULL,
    block_ids      INTEGER[] NOT NULL,
    PRIMARY KEY (trace_id, idx)
);
