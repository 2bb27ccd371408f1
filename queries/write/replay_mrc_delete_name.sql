-- replay_mrc_delete_name: drop the curve points of every run called $run_name (before re-saving it).
-- Params:
--   $run_name VARCHAR  run name
-- Grain: none (a delete).
DELETE FROM replay_mrc WHERE run_id IN (SELECT run_id FROM replay_runs WHERE name = $run_name)
