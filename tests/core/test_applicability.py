"""Which panels apply comes from what the stack says about itself, checked against the real recordings.

Every catalog 'needs …' text that names a vLLM version is walked against the recorded real files:
a file of that version or newer, with the feature configured, exports the metric; an older one,
or one recorded without the feature, either lacks it or the stack's own config marks it inapplicable.
"""

from __future__ import annotations

import re

import pytest
from prometheus_client.parser import text_string_to_metric_families

from dashboard.core import catalog
from dashboard.core.applicability import stack_config, unavailable
from tests.ingest.real_vllm import LMCACHE_FILE, OFFLOAD_FILE, SCRAPE_FILES, sample_names

# (file, vLLM version, what was configured when it was recorded; see tests/data/real-vllm/README.md)
RECORDED = {
    "vllm-0.32.0-no-connector": (SCRAPE_FILES[-1], (0, 32), set()),
    "vllm-0.33.0-offloading": (OFFLOAD_FILE, (0, 33), {"connector", "offload"}),
}
_SINCE = re.compile(r"vLLM ≥ (\d+)\.(\d+)")
_RANGE = re.compile(r"vLLM (\d+)\.(\d+)–(\d+)\.(\d+)")


def cache_config_labels(path) -> list[dict[str, str]]:
    return [
        dict(s.labels)
        for f in text_string_to_metric_families(path.read_text())
        for s in f.samples
        if s.name == "vllm:cache_config_info"
    ]


def recorded_config(name: str):
    path = RECORDED[name][0]
    return stack_config(sample_names(path), cache_config_labels(path))


def version_claim(needs: str) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
    """(first, last or None) vLLM version a 'needs' text names, or None if it names none."""
    if m := _RANGE.search(needs):
        return (int(m[1]), int(m[2])), (int(m[3]), int(m[4]))
    if m := _SINCE.search(needs):
        return (int(m[1]), int(m[2])), None
    return None


VERSIONED = [s for s in catalog.CATALOG.values() if s.component.startswith("vllm") and version_claim(s.needs)]


@pytest.mark.parametrize("spec", VERSIONED, ids=lambda s: s.key)
def test_each_needs_text_names_a_version_the_recordings_agree_with(spec):
    first, last = version_claim(spec.needs)
    for name, (path, version, configured) in RECORDED.items():
        if spec.component == "vllm-offload" and "offload" not in configured:
            continue  # recorded without the connector: says nothing about the version
        in_range = version >= first and (last is None or version <= last)
        exported = catalog.resolve(spec.key, sample_names(path)) is not None
        assert exported == in_range, f"{spec.key} ({spec.needs!r}) vs {name}"


def test_prompt_tokens_by_cache_source_exist_already_in_vllm_0_32():
    assert catalog.resolve("prompt_tokens_cached_by_source", sample_names(SCRAPE_FILES[0]))
    assert "0.32" in catalog.spec("prompt_tokens_cached_by_source").needs


def test_external_cache_counters_at_zero_without_a_connector_do_not_make_the_offload_panel_apply():
    keys = ("external_prefix_cache_hits", "prefix_cache_hits")
    present = sample_names(SCRAPE_FILES[-1])
    assert catalog.resolve("external_prefix_cache_hits", present)  # exported, at 0
    missing = unavailable(keys, present, recorded_config("vllm-0.32.0-no-connector"))
    assert set(missing) == {"external_prefix_cache_hits"}
    assert "KV connector" in missing["external_prefix_cache_hits"]


def test_the_default_native_backend_label_alone_is_not_an_offload_tier():
    labels = cache_config_labels(SCRAPE_FILES[-1])
    assert labels[0]["kv_offloading_backend"] == "native" and labels[0]["kv_offloading_size"] == "None"
    assert not recorded_config("vllm-0.32.0-no-connector").is_offload_configured


def test_kv_offload_config_info_says_the_offloading_connector_is_configured():
    config = recorded_config("vllm-0.33.0-offloading")
    assert config.is_offload_configured and config.is_connector_configured
    keys = ("external_prefix_cache_hits", "kv_offload_store_bytes", "kv_offload_config_info")
    assert unavailable(keys, sample_names(OFFLOAD_FILE), config) == {}


def test_a_kv_offloading_size_in_cache_config_info_configures_its_backend():
    labels = [{"kv_offloading_backend": "lmcache", "kv_offloading_size": "8.0"}]
    config = stack_config({"vllm:prefix_cache_hits_total"}, labels)
    assert config.is_lmcache_configured and not config.is_offload_configured


def test_lmcaches_own_families_say_lmcache_is_configured():
    config = stack_config(sample_names(LMCACHE_FILE), [])
    assert config.is_lmcache_configured and not config.is_offload_configured
