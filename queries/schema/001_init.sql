-- 001_init: metric samples, requests and annotations (DESIGN.md interchange format).
-- series: one row per distinct metric name + label set; series_key is the canonical text
--   `metric{k1=v1,k2=v2}` with labels sorted by key, so the same series always maps to one row.
-- samples: one row per series × ts (unique by the write path; see 006_samples_unkeyed).
CREATE SEQUENCE series_id_seq START 1;

CREATE TABLE series (
    series_id   BIGINT PRIMARY KEY DEFAULT nextval('series_id_seq'),
    series_key  VARCHAR NOT NULL UNIQUE,
    metric      VARCHAR NOT NULL,
    labels      MAP(VARCHAR, VARCHAR) NOT NULL,
    pod         VARCHAR,            -- labels['pod'], or NULL
    le          DOUBLE              -- labels['le'] as a number for histogram buckets, else NULL
);

CREATE TABLE samples (
    series_id   BIGINT NOT NULL,
    ts          TIMESTAMP NOT NULL,  -- UTC
    value       DOUBLE NOT NULL,
    PRIMARY KEY (series_id, ts)
);

CREATE TABLE requests (
    ts                 TIMESTAMP NOT NULL,
    request_id         VARCHAR NOT NULL,
    session_id         VARCHAR,
    turn               INTEGER,
    tenant             VARCHAR,
    input_tokens       BIGINT,
    output_tokens      BIGINT,
    block_tokens       INTEGER,
    block_ids          BIGINT[],
    pod                VARCHAR,
    cached_tokens_gpu  BIGINT,
    cached_tokens_cpu  BIGINT,
    ttft_s             DOUBLE
);

CREATE TABLE annotations (
    ts    TIMESTAMP NOT NULL,
    kind  VARCHAR NOT NULL,
    text  VARCHAR NOT NULL
);
