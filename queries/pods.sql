-- pods: the engine pods the store has vLLM series for.
-- Params: none.
-- Grain: one row per pod.
-- Columns: pod VARCHAR
SELECT DISTINCT pod
FROM series
WHERE pod IS NOT NULL AND starts_with(metric, 'vllm:')
ORDER BY pod
