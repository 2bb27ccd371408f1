"""Which panels apply: decided from what the stack says about its own configuration.

A counter's presence is not configuration: vLLM 0.32 exports `vllm:external_prefix_cache_*` at 0
with no KV connector, and `vllm:prompt_tokens_cached_by_source_total{source="host"|"disk"}` at 0
with no offload tier (tests/data/real-vllm). So a KV connector counts as configured only when the
stack describes one: `vllm:kv_offload_config_info` (vLLM ≥ 0.33), `vllm:cache_config_info` with
`kv_offloading_size` set (its `kv_offloading_backend` label alone says "native" by default), the
OffloadingConnector's own `vllm:kv_offload_*` families, or LMCache's `lmcache:*` families.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from dashboard.core import catalog

_UNSET = ("", "none", "0", "0.0")


@dataclass(frozen=True)
class StackConfig:
    """What the stack's own info metrics and connector families say is configured."""

    is_offload_configured: bool  # vLLM's OffloadingConnector (native CPU tier)
    is_lmcache_configured: bool

    @property
    def is_connector_configured(self) -> bool:
        """True when any KV connector is configured."""
        return self.is_offload_configured or self.is_lmcache_configured


def stack_config(present: set[str], cache_config_labels: Iterable[Mapping[str, str]]) -> StackConfig:
    """Read the configuration from the metric names present and each pod's cache_config_info labels."""
    sized = [
        labels.get("kv_offloading_backend", "")
        for labels in cache_config_labels
        if str(labels.get("kv_offloading_size", "")).lower() not in _UNSET
    ]
    connector_families = ("kv_offload_config_info", "kv_offload_store_bytes", "kv_offload_transfer_bytes")
    offload = "native" in sized or any(catalog.resolve(k, present) for k in connector_families)
    lmcache = "lmcache" in sized or any(name.startswith("lmcache:") for name in present)
    return StackConfig(is_offload_configured=offload, is_lmcache_configured=lmcache)


def unavailable(keys: Iterable[str], present: set[str], config: StackConfig) -> dict[str, str]:
    """For each key whose panel does not apply to this stack: the 'needs …' text to show instead."""
    out = {}
    for key in keys:
        spec = catalog.spec(key)
        if catalog.resolve(key, present) is None or not _applies(spec.applies_when, config):
            out[key] = spec.needs
    return out


def _applies(condition: str, config: StackConfig) -> bool:
    if condition == "connector":
        return config.is_connector_configured
    assert condition == "", f"unknown applies_when {condition!r}"
    return True
