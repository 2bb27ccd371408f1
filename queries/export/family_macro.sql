-- export/family_macro: metric_family(metric), the partition key of exported series and samples.
-- A metric's Prometheus family: its name without a _total, _bucket, _sum, _count or _created
-- suffix, with every character other than a letter, digit or _ written as _
-- (vllm:prefix_cache_hits_total → vllm_prefix_cache_hits). A histogram's buckets, sum and count
-- share one partition; no partition folder holds a `:` (Hadoop-based readers refuse one in a path).
-- NOTE: a TEMP macro: it lives on the exporting cursor only and never enters the store.
-- Grain: no rows.
-- Columns: none
CREATE OR REPLACE TEMP MACRO metric_family(metric) AS
    regexp_replace(regexp_replace(metric, '_(total|bucket|sum|count|created)$', ''), '[^A-Za-z0-9_]', '_', 'g')
