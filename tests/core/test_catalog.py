"""The metric catalog: one variant per series, newest first, and a 'needs …' text for every gap."""

import re
from pathlib import Path

import pytest

from dashboard.core import catalog

QUERIES = Path(__file__).resolve().parents[2] / "queries"


def test_no_exported_name_belongs_to_two_metrics():
    owners: dict[str, str] = {}
    for key in catalog.CATALOG:
        for name in catalog.exported_names(key):
            assert owners.setdefault(name, key) == key, f"{name} is listed under {owners[name]} and {key}"


def test_resolve_picks_the_newest_variant_present():
    old, new = "inference_extension_scheduler_attempts_total", "llm_d_epp_scheduler_attempts_total"
    assert catalog.resolve("epp_scheduler_attempts", {old}) == old
    assert catalog.resolve("epp_scheduler_attempts", {old, new}) == new


def test_histograms_resolve_by_their_bucket_series():
    assert catalog.resolve("ttft_seconds", {"vllm:time_to_first_token_seconds_bucket"}) == (
        "vllm:time_to_first_token_seconds_bucket"
    )
    assert catalog.resolve("ttft_seconds", {"vllm:time_to_first_token_seconds_sum"}) is None


def test_a_metric_the_stack_does_not_export_resolves_to_none():
    assert catalog.resolve("lmcache_hit_tokens", {"vllm:prefix_cache_hits_total"}) is None


def test_unknown_keys_are_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="unknown catalog metric 'nope'.*prefix_cache_hits"):
        catalog.spec("nope")


@pytest.mark.parametrize("spec", catalog.CATALOG.values(), ids=lambda s: s.key)
def test_every_entry_says_what_a_stack_needs_to_export_it(spec):
    assert spec.names and spec.needs and spec.unit
    assert spec.kind in (catalog.COUNTER, catalog.GAUGE, catalog.HISTOGRAM, catalog.INFO)
    if spec.kind == catalog.COUNTER:
        assert all(name.endswith("_total") for name in spec.names), spec.names


def test_every_catalog_key_a_query_names_exists():
    named = {m for sql in QUERIES.glob("*.sql") for m in re.findall(r"catalog:(\w+)", sql.read_text())}
    assert named, "no query names a catalog metric"
    assert named <= set(catalog.CATALOG), named - set(catalog.CATALOG)
