"""The metric catalog as data: each metric the pages use, its name variants, type and unit.

Names are listed newest first. Resolution picks one variant per series and never adds
variants together (newer EPPs emit old and new names side by side). Source:
docs/metrics-catalog.md (vLLM 0.10–0.34, GAIE 1.0–1.5, llm-d-router ≥ 0.9, LMCache 0.5).
"""

from __future__ import annotations

from dataclasses import dataclass

COUNTER, GAUGE, HISTOGRAM, INFO = "counter", "gauge", "histogram", "info"


@dataclass(frozen=True)
class MetricSpec:
    """One logical metric and every exported name it has had, newest first."""

    key: str
    names: tuple[str, ...]
    kind: str
    unit: str
    component: str  # vllm | vllm-offload | epp | lmcache
    needs: str  # what a stack must run or enable to export it (shown when it is missing)
    description: str = ""
    # NOTE: some names exist without the feature (vLLM 0.32 exports the external-cache counters
    # at 0 with no connector), so their panels also need the stack to say the feature is on:
    # "connector" (a KV connector), "" (the name's presence is enough). See core/applicability.py.
    applies_when: str = ""


# NOTE: LMCache's metrics reach vLLM's /metrics only in multiprocess mode (llm-d sets the dir).
_LMCACHE = "LMCache 0.5 as vLLM's KV connector, with PROMETHEUS_MULTIPROC_DIR set"
_CONNECTOR = (
    "vLLM with a KV connector (OffloadingConnector, LMCache); without one the counters are exported at 0"
)

_SPECS = (
    MetricSpec(
        "prefix_cache_queries",
        ("vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"),
        COUNTER,
        "tokens",
        "vllm",
        "vLLM V1 with prefix caching",
        "tokens looked up in the local (GPU) prefix cache",
    ),
    MetricSpec(
        "prefix_cache_hits",
        ("vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"),
        COUNTER,
        "tokens",
        "vllm",
        "vLLM V1 with prefix caching",
        "tokens found in the local (GPU) prefix cache",
    ),
    MetricSpec(
        "external_prefix_cache_queries",
        ("vllm:external_prefix_cache_queries_total",),
        COUNTER,
        "tokens",
        "vllm",
        _CONNECTOR,
        "tokens looked up through the KV connector after the local hit",
        applies_when="connector",
    ),
    MetricSpec(
        "external_prefix_cache_hits",
        ("vllm:external_prefix_cache_hits_total",),
        COUNTER,
        "tokens",
        "vllm",
        _CONNECTOR,
        "tokens found through the KV connector",
        applies_when="connector",
    ),
    MetricSpec(
        "prompt_tokens_cached_by_source",
        ("vllm:prompt_tokens_cached_by_source_total",),
        COUNTER,
        "tokens",
        "vllm",
        "vLLM ≥ 0.32 (#56318; absent in 0.31.0)",
        "cached prompt tokens by the tier that supplied them (label source)",
    ),
    MetricSpec(
        "prompt_tokens_by_source",
        ("vllm:prompt_tokens_by_source_total",),
        COUNTER,
        "tokens",
        "vllm",
        "vLLM ≥ 0.32 (recorded in 0.32.0; absent in 0.31.0)",
        "prompt tokens by where their KV came from (label source: local_compute, local_cache_hit, "
        "external_kv_transfer)",
    ),
    MetricSpec(
        "ttft_seconds",
        ("vllm:time_to_first_token_seconds",),
        HISTOGRAM,
        "s",
        "vllm",
        "vLLM V1",
        "time to first token from arrival at the engine frontend",
    ),
    MetricSpec(
        "kv_cache_usage",
        ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
        GAUGE,
        "ratio",
        "vllm",
        "vLLM V1",
        "share of GPU KV blocks held by running requests (evictable cached blocks count as free)",
    ),
    MetricSpec(
        "num_requests_running",
        ("vllm:num_requests_running",),
        GAUGE,
        "requests",
        "vllm",
        "vLLM V1",
        "running batch size",
    ),
    MetricSpec(
        "num_requests_waiting",
        ("vllm:num_requests_waiting",),
        GAUGE,
        "requests",
        "vllm",
        "vLLM V1",
        "waiting requests",
    ),
    MetricSpec(
        "generation_tokens",
        ("vllm:generation_tokens_total",),
        COUNTER,
        "tokens",
        "vllm",
        "vLLM V1",
        "output tokens generated (decode)",
    ),
    MetricSpec(
        "request_success",
        ("vllm:request_success_total",),
        COUNTER,
        "requests",
        "vllm",
        "vLLM V1",
        "finished requests (label finished_reason)",
    ),
    MetricSpec(
        "prompt_tokens",
        ("vllm:prompt_tokens_total",),
        COUNTER,
        "tokens",
        "vllm",
        "vLLM V1",
        "prompt tokens processed (computed plus cached)",
    ),
    MetricSpec(
        "num_preemptions",
        ("vllm:num_preemptions_total",),
        COUNTER,
        "events",
        "vllm",
        "vLLM V1",
        "requests preempted for lack of KV blocks (they recompute later)",
    ),
    MetricSpec(
        "num_requests_waiting_by_reason",
        ("vllm:num_requests_waiting_by_reason",),
        GAUGE,
        "requests",
        "vllm",
        "vLLM ≥ 0.32 (recorded in 0.32.0)",
        "waiting requests by reason (label reason: capacity = no KV blocks, deferred)",
    ),
    MetricSpec(
        "kv_block_lifetime",
        ("vllm:kv_block_lifetime_seconds",),
        HISTOGRAM,
        "s",
        "vllm",
        "vLLM with --kv-cache-metrics (sampled; not in the recorded 0.32/0.33 files)",
        "seconds a GPU KV block stayed allocated, from allocation to eviction",
    ),
    MetricSpec(
        "kv_block_idle_before_evict",
        ("vllm:kv_block_idle_before_evict_seconds",),
        HISTOGRAM,
        "s",
        "vllm",
        "vLLM with --kv-cache-metrics (sampled; not in the recorded 0.32/0.33 files)",
        "seconds an evicted GPU block sat unused before its eviction",
    ),
    MetricSpec(
        "kv_block_reuse_gap",
        ("vllm:kv_block_reuse_gap_seconds",),
        HISTOGRAM,
        "s",
        "vllm",
        "vLLM with --kv-cache-metrics (sampled; not in the recorded 0.32/0.33 files)",
        "seconds between consecutive uses of a cached GPU block",
    ),
    MetricSpec(
        "cache_config_info",
        ("vllm:cache_config_info",),
        INFO,
        "info",
        "vllm",
        "vLLM V1",
        "cache configuration labels (block_size, num_gpu_blocks, …)",
    ),
    MetricSpec(
        "kv_offload_store_bytes",
        ("vllm:kv_offload_store_bytes_total",),
        COUNTER,
        "bytes",
        "vllm-offload",
        "vLLM ≥ 0.26 with the OffloadingConnector",
        "KV bytes stored from GPU to the offload tier",
    ),
    MetricSpec(
        "kv_offload_load_bytes",
        ("vllm:kv_offload_load_bytes_total",),
        COUNTER,
        "bytes",
        "vllm-offload",
        "vLLM ≥ 0.26 with the OffloadingConnector",
        "KV bytes loaded from the offload tier into GPU",
    ),
    MetricSpec(
        "kv_offload_store_time",
        ("vllm:kv_offload_store_time_total",),
        COUNTER,
        "s",
        "vllm-offload",
        "vLLM ≥ 0.26 with the OffloadingConnector",
        "seconds spent storing KV to the offload tier",
    ),
    MetricSpec(
        "kv_offload_load_time",
        ("vllm:kv_offload_load_time_total",),
        COUNTER,
        "s",
        "vllm-offload",
        "vLLM ≥ 0.26 with the OffloadingConnector",
        "seconds spent loading KV from the offload tier",
    ),
    MetricSpec(
        "kv_offload_config_info",
        ("vllm:kv_offload_config_info",),
        INFO,
        "info",
        "vllm-offload",
        "vLLM ≥ 0.33 with the OffloadingConnector (absent in 0.32.0)",
        "CPU tier capacity labels",
    ),
    MetricSpec(
        "kv_offload_lookup_sync_delay",
        ("vllm:kv_offload_lookup_sync_delay_seconds",),
        HISTOGRAM,
        "s",
        "vllm-offload",
        "vLLM with the OffloadingConnector (defined in 0.32.0's source, recorded in 0.33.0)",
        "seconds a synchronous offload-tier lookup took",
    ),
    MetricSpec(
        "kv_offload_lookup_async_delay",
        ("vllm:kv_offload_lookup_async_delay_seconds",),
        HISTOGRAM,
        "s",
        "vllm-offload",
        "vLLM's OffloadingConnector (0.33.0 declares it, with no series until a lookup defers)",
        "seconds an asynchronous offload-tier lookup took",
    ),
    MetricSpec(
        "kv_offload_allocation_failures",
        ("vllm:kv_offload_allocation_failure_total",),
        COUNTER,
        "events",
        "vllm-offload",
        "vLLM's OffloadingConnector (0.33.0 declares it, with no series until a store fails)",
        "offload stores that could not allocate space in the CPU tier",
    ),
    MetricSpec(
        "kv_offload_stores_skipped",
        ("vllm:kv_offload_stores_skipped_total",),
        COUNTER,
        "events",
        "vllm-offload",
        "vLLM's OffloadingConnector with store_threshold ≥ 2 (not in the recorded 0.33.0 file)",
        "stores skipped because the block was not reused often enough yet",
    ),
    MetricSpec(
        "kv_offload_transfer_bytes",
        ("vllm:kv_offload_total_bytes_total",),
        COUNTER,
        "bytes",
        "vllm-offload",
        "vLLM ≥ 0.12 with the OffloadingConnector (or llm-d's fs backend); still emitted beside the flat names",
        "KV bytes moved by direction (label transfer_type GPU_to_CPU, CPU_to_GPU, …); superseded by "
        "the flat store/load names, which pods exporting both are read from",
    ),
    MetricSpec(
        "lmcache_requested_tokens",
        ("lmcache:num_requested_tokens_total",),
        COUNTER,
        "tokens",
        "lmcache",
        _LMCACHE,
        "tokens LMCache was asked to retrieve",
    ),
    MetricSpec(
        "lmcache_hit_tokens",
        ("lmcache:num_hit_tokens_total",),
        COUNTER,
        "tokens",
        "lmcache",
        _LMCACHE,
        "tokens LMCache retrieved (256-token chunks, full chunks only)",
    ),
    MetricSpec(
        "lmcache_cpu_usage",
        ("lmcache:local_cache_usage",),
        GAUGE,
        "bytes",
        "lmcache",
        _LMCACHE,
        "KV bytes resident in LMCache's CPU DRAM tier",
    ),
    MetricSpec(
        "lmcache_disk_usage",
        ("lmcache:local_storage_usage",),
        GAUGE,
        "bytes",
        "lmcache",
        _LMCACHE + " and a local disk tier (max_local_disk_size)",
        "KV bytes resident in LMCache's local disk tier",
    ),
    MetricSpec(
        "lmcache_lookup_tokens",
        ("lmcache:num_lookup_tokens_total",),
        COUNTER,
        "tokens",
        "lmcache",
        _LMCACHE + " (name from LMCache's source; not in the recorded 0.5.6 logger file)",
        "tokens the scheduler looked up in LMCache",
    ),
    MetricSpec(
        "lmcache_lookup_hits",
        ("lmcache:num_lookup_hits_total",),
        COUNTER,
        "tokens",
        "lmcache",
        _LMCACHE + " (name from LMCache's source; not in the recorded 0.5.6 logger file)",
        "tokens the scheduler's LMCache lookups found",
    ),
    MetricSpec(
        "lmcache_stored_tokens",
        ("lmcache:num_stored_tokens_total",),
        COUNTER,
        "tokens",
        "lmcache",
        _LMCACHE + " (name from LMCache's source; not in the recorded 0.5.6 logger file)",
        "tokens LMCache stored (including ones evicted later)",
    ),
    MetricSpec(
        "lmcache_cpu_evictions",
        ("lmcache:local_cpu_evict_count_total",),
        COUNTER,
        "events",
        "lmcache",
        _LMCACHE + " (name from LMCache's source; not in the recorded 0.5.6 logger file)",
        "evictions from LMCache's CPU tier",
    ),
    MetricSpec(
        "epp_scheduler_attempts",
        (
            "llm_d_epp_scheduler_attempts_total",
            "llm_d_router_epp_scheduler_attempts_total",
            "inference_extension_scheduler_attempts_total",
        ),
        COUNTER,
        "requests",
        "epp",
        "llm-d-router ≥ 0.9 or GAIE EPP ≥ 1.0",
        "scheduling attempts by chosen endpoint (label endpoint_name, GAIE: pod_name)",
    ),
    MetricSpec(
        "epp_prefix_indexer_hit_ratio",
        (
            "llm_d_epp_prefix_indexer_hit_ratio",
            "llm_d_router_epp_prefix_indexer_hit_ratio",
            "inference_extension_prefix_indexer_hit_ratio",
        ),
        HISTOGRAM,
        "ratio",
        "epp",
        "llm-d-router ≥ 0.9 or GAIE EPP with the prefix plugin",
        "EPP-predicted prefix match ratio of the chosen endpoint",
    ),
    MetricSpec(
        "epp_prefix_predicted_cached_tokens",
        ("llm_d_epp_prefix_predicted_cached_tokens",),
        HISTOGRAM,
        "tokens",
        "epp",
        "llm-d-router with the prefix plugin (used by llm-d's kv-cache dashboard; not in every router build)",
        "prompt tokens the EPP predicted the chosen endpoint holds (compare _sum with the engines' hits)",
    ),
    MetricSpec(
        "epp_prefix_prompt_tokens",
        ("llm_d_epp_prefix_prompt_tokens",),
        HISTOGRAM,
        "tokens",
        "epp",
        "llm-d-router with the prefix plugin (used by llm-d's kv-cache dashboard; not in every router build)",
        "prompt tokens of the requests the EPP scored",
    ),
)

CATALOG: dict[str, MetricSpec] = {spec.key: spec for spec in _SPECS}


def spec(key: str) -> MetricSpec:
    """The catalog entry for key, or a ValueError naming the known keys."""
    try:
        return CATALOG[key]
    except KeyError:
        raise ValueError(f"unknown catalog metric {key!r}; known: {', '.join(CATALOG)}") from None


def exported_names(key: str) -> list[str]:
    """Every exported series name of a metric, newest first (histograms: their _bucket names)."""
    s = spec(key)
    if s.kind == HISTOGRAM:
        return [f"{name}_bucket" for name in s.names]
    return list(s.names)


def resolve(key: str, present: set[str]) -> str | None:
    """The newest variant of key among the names present, or None if the stack exports none."""
    return next((name for name in exported_names(key) if name in present), None)
