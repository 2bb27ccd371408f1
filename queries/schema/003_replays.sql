-- 003_replays: saved what-if replays for the UI.
-- replay_runs: one row per saved replay (a `kvscope replay --save NAME` run or one sweep config);
--   config and summary are the JSON texts of ReplayRequest and ReplaySummary.to_dict(); the
--   headline figures are copied into columns so lists and comparisons need no JSON parsing.
-- replay_mrc: one row per run × policy × capacity point of a hit-ratio curve.
CREATE SEQUENCE replay_run_id_seq START 1;

CREATE TABLE replay_runs (
    run_id           BIGINT PRIMARY KEY DEFAULT nextval('replay_run_id_seq'),
    name             VARCHAR NOT NULL,
    sweep            VARCHAR,            -- sweep name, NULL for a single replay
    created_at       TIMESTAMP NOT NULL, -- UTC
    trace            VARCHAR NOT NULL,   -- trace file or stored trace name
    num_pods         INTEGER NOT NULL,
    router           VARCHAR NOT NULL,
    policy           VARCHAR NOT NULL,
    hbm_blocks       BIGINT NOT NULL,
    cpu_blocks       BIGINT NOT NULL,
    disk_blocks      BIGINT NOT NULL,
    requests         BIGINT NOT NULL,
    block_accesses   BIGINT NOT NULL,
    block_hits       BIGINT NOT NULL,
    block_hit_ratio  DOUBLE NOT NULL,
    token_hit_ratio  DOUBLE NOT NULL,
    ttft_p50_s       DOUBLE,
    ttft_p90_s       DOUBLE,
    ttft_p99_s       DOUBLE,
    load_imbalance   DOUBLE,
    elapsed_s        DOUBLE,
    config_json      VARCHAR NOT NULL,
    summary_json     VARCHAR NOT NULL
);

CREATE TABLE replay_mrc (
    run_id           BIGINT NOT NULL,
    policy           VARCHAR NOT NULL,
    capacity_blocks  BIGINT NOT NULL,
    block_hit_ratio  DOUBLE NOT NULL,
    token_hit_ratio  DOUBLE NOT NULL
);
