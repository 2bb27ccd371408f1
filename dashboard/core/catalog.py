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
