-- replay_run: one saved replay by name (the newest, if several share it), with its JSON texts.
-- Params:
--   $run_name VARCHAR  run name
-- Grain: at most one row.
-- Columns: run_id BIGINT, name VARCHAR, sweep VARCHAR, created_at TIMESTAMP, trace VARCHAR,
--          config_json VARCHAR, summary_json VARCHAR
SELECT run_id, name, sweep, created_at, trace, config_json, summary_json
FROM replay_runs
WHERE name = $run_name
ORDER BY run_id DESC
LIMIT 1
