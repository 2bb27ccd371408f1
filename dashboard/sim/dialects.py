"""The same simulated numbers under the names other stack versions export (metrics-catalog.md §2b, §5a).

The exporter computes one set of series in vLLM 0.34 / llm-d-router ≥ 0.9 naming; these pure
transforms rename, drop or duplicate them the way an older vLLM or a GAIE EPP would, so kvscope
can be fed old and new naming for identical data (and serve-sim can imitate either).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the exporter imports this module
    from dashboard.sim.exporter import Series

VLLM_NAMINGS = ("0.34", "0.20", "0.10")
EPP_NAMINGS = ("llm-d", "gaie")
CONNECTORS = ("offloading", "lmcache")


@dataclass(frozen=True)
class Dialect:
    """Which versions the simulated stack imitates, and which KV connector runs its CPU tier."""

    vllm: str = "0.34"  # 0.34 | 0.20 | 0.10
    epp: str = "llm-d"  # llm-d (router ≥ 0.9: new and legacy names side by side) | gaie (v1.3–1.5)
    connector: str = "offloading"  # vLLM's OffloadingConnector | lmcache

    def __post_init__(self) -> None:
        for value, known, what in (
            (self.vllm, VLLM_NAMINGS, "vLLM naming"),
            (self.epp, EPP_NAMINGS, "EPP naming"),
            (self.connector, CONNECTORS, "KV connector"),
        ):
            if value not in known:
                raise ValueError(f"unknown {what} {value!r}; known: {', '.join(known)}")


DEFAULT_DIALECT = Dialect()

_LEGACY_TRANSFER = "vllm:kv_offload_total_bytes_total"
_FLAT_TO_TRANSFER_TYPE = {
    "vllm:kv_offload_store_bytes_total": "GPU_to_CPU",
    "vllm:kv_offload_load_bytes_total": "CPU_to_GPU",
}
_VLLM_0_10_NAMES = {
    "vllm:prefix_cache_queries_total": "vllm:gpu_prefix_cache_queries_total",
    "vllm:prefix_cache_hits_total": "vllm:gpu_prefix_cache_hits_total",
    "vllm:kv_cache_usage_perc": "vllm:gpu_cache_usage_perc",
}
# NOTE: metrics introduced after a version are absent from it: tier attribution of hits came in
# 0.34, the flat offload names in ~0.26 (#35669), the offload connector's metrics in ~0.12.
_NEWER_THAN_0_20 = ("vllm:prompt_tokens_cached_by_source_total", "vllm:kv_offload_")
_NEWER_THAN_0_10 = (*_NEWER_THAN_0_20, "vllm:external_prefix_cache_")
_GAIE_NAMES = {
    "llm_d_epp_scheduler_attempts_total": "inference_extension_scheduler_attempts_total",
    "llm_d_epp_prefix_indexer_hit_ratio": "inference_extension_prefix_indexer_hit_ratio",
}


def vllm_dialect(series: list[Series], naming: str) -> list[Series]:
    """One pod's vLLM 0.34 series as vLLM `naming` exports them."""
    # vLLM 0.34 still emits the deprecated per-direction counter beside the flat names (CPU spec).
    legacy = [
        replace(
            s, metric=_LEGACY_TRANSFER, labels=s.labels | {"transfer_type": _FLAT_TO_TRANSFER_TYPE[s.metric]}
        )
        for s in series
        if s.metric in _FLAT_TO_TRANSFER_TYPE
    ]
    if naming == "0.34":
        return series + legacy
    if naming == "0.20":
        return [s for s in series if not s.metric.startswith(_NEWER_THAN_0_20)] + legacy
    kept = [s for s in series if not s.metric.startswith(_NEWER_THAN_0_10)]
    return [replace(s, metric=_VLLM_0_10_NAMES.get(s.metric, s.metric)) for s in kept]


def epp_dialect(series: list[Series], naming: str) -> list[Series]:
    """The EPP's llm-d series as `naming` exports them: llm-d-router ≥ 0.9 emits old and new names."""
    renamed = [_gaie(s) for s in series]
    if naming == "gaie":  # GAIE has no llm-d-only families (predicted cached tokens)
        return [s for s in renamed if not s.metric.startswith("llm_d_")]
    return series + [new for old, new in zip(series, renamed, strict=True) if new is not old]


def _gaie(s: Series) -> Series:
    """s under its GAIE name and labels, or s itself when GAIE has no such metric."""
    base = next((b for b in _GAIE_NAMES if s.metric.startswith(b)), None)
    if base is None:
        return s
    labels = {k: v for k, v in s.labels.items() if k not in ("plugin_type", "plugin_name")}
    if "endpoint_name" in labels:
        labels["pod_name"] = labels.pop("endpoint_name")
    return replace(s, metric=_GAIE_NAMES[base] + s.metric[len(base) :], labels=labels)
