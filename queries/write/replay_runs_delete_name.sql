-- replay_runs_delete_name: drop every run called $run_name (before re-saving it).
-- Params:
--   $run_name VARCHAR  run name
-- Grain: none (a delete).
DELETE FROM replay_runs WHERE name = $run_name
