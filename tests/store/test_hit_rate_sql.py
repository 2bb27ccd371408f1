"""queries/hit_rate.sql against hand-computed windowed rates (DESIGN.md semantics)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from dashboard.store.queries import run_query
from dashboard.store.writes import write_samples
from tests.store.helpers import T0, counter_rows, frame

HITS, QUERIES = "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"
EXT_HITS, EXT_QUERIES = "vllm:external_prefix_cache_hits_total", "vllm:external_prefix_cache_queries_total"


def rates(store, **params):
    return run_query(store, "hit_rate", start=T0, end=T0 + timedelta(seconds=120), step=60, **params)


def rate_at(rows, seconds, pod="*", tier="gpu"):
    picked = rows[(rows.ts == T0 + timedelta(seconds=seconds)) & (rows.pod == pod) & (rows.tier == tier)]
    assert len(picked) == 1, f"expected one row at {seconds}s for {pod}/{tier}, got {len(picked)}"
    return picked.iloc[0]


def test_cluster_rate_sums_pods_before_dividing(store):
    # Window (0, 60] holds scrapes at 15, 30, 45, 60 s: three increases per series.
    # pod a: hits +30 of queries +300; pod b: hits +90 of +100. Mean of ratios would be 0.5.
    write_samples(
        store,
        frame(
            counter_rows(HITS, {"pod": "a"}, [0, 10, 20, 30])
            + counter_rows(QUERIES, {"pod": "a"}, [0, 100, 200, 300])
            + counter_rows(HITS, {"pod": "b"}, [0, 30, 60, 90])
            + counter_rows(QUERIES, {"pod": "b"}, [0, 40, 70, 100])
        ),
    )
    rows = rates(store)
    assert rate_at(rows, 60).hit_rate == pytest.approx(120 / 400)
    assert rate_at(rows, 60, pod="a").hit_rate == pytest.approx(0.1)
    assert rate_at(rows, 60, pod="b").hit_rate == pytest.approx(0.9)


def test_counter_reset_counts_the_new_value_as_the_increase(store):
    # A restart between 30 s and 45 s: hits 50 → 100 → 5 → 25 means increases 50, 5, 20 = 75.
    write_samples(
        store,
        frame(
            counter_rows(HITS, {"pod": "a"}, [50, 100, 5, 25])
            + counter_rows(QUERIES, {"pod": "a"}, [100, 200, 10, 50])
        ),
    )
    rows = rates(store)
    row = rate_at(rows, 60, pod="a")
    assert row.hit_tokens == pytest.approx(75)
    assert row.query_tokens == pytest.approx(150)
    assert 0 <= row.hit_rate <= 1


def test_windows_tile_without_counting_a_pair_twice(store):
    # Scrapes at 15..120 s: window (0,60] gets pairs inside it, (60,120] its own; the pair
    # straddling 60→75 belongs to neither, as in Prometheus's rate over each window.
    write_samples(
        store,
        frame(
            counter_rows(HITS, {"pod": "a"}, [0, 1, 2, 3, 13, 23, 33, 43])
            + counter_rows(QUERIES, {"pod": "a"}, [0, 10, 20, 30, 40, 50, 60, 70])
        ),
    )
    rows = rates(store)
    assert rate_at(rows, 60, pod="a").hit_rate == pytest.approx(3 / 30)
    assert rate_at(rows, 120, pod="a").hit_rate == pytest.approx(30 / 30)


def test_only_the_newest_name_variant_of_a_pod_is_used(store):
    # An upgraded pod exports both names; adding them would double the rate's inputs.
    write_samples(
        store,
        frame(
            counter_rows(HITS, {"pod": "a"}, [0, 10, 20, 30])
            + counter_rows(QUERIES, {"pod": "a"}, [0, 20, 40, 60])
            + counter_rows("vllm:gpu_prefix_cache_hits_total", {"pod": "a"}, [0, 60, 120, 180])
            + counter_rows("vllm:gpu_prefix_cache_queries_total", {"pod": "b"}, [0, 10, 20, 30])
            + counter_rows("vllm:gpu_prefix_cache_hits_total", {"pod": "b"}, [0, 1, 2, 3])
        ),
    )
    rows = rates(store)
    assert rate_at(rows, 60, pod="a").hit_tokens == pytest.approx(30)
    assert rate_at(rows, 60, pod="b").hit_rate == pytest.approx(0.1)  # old vLLM names still resolve
    assert rate_at(rows, 60).hit_rate == pytest.approx(33 / 90)


def test_offload_tier_is_reported_separately(store):
    write_samples(
        store,
        frame(
            counter_rows(EXT_HITS, {"pod": "a"}, [0, 5, 10, 15])
            + counter_rows(EXT_QUERIES, {"pod": "a"}, [0, 20, 40, 60])
            + counter_rows(HITS, {"pod": "a"}, [0, 10, 20, 30])
            + counter_rows(QUERIES, {"pod": "a"}, [0, 40, 80, 120])
        ),
    )
    rows = rates(store)
    assert rate_at(rows, 60, tier="offload").hit_rate == pytest.approx(0.25)
    assert rate_at(rows, 60, tier="gpu").hit_rate == pytest.approx(0.25)
    assert set(rows.tier) == {"gpu", "offload"}


def test_pod_filter_returns_only_that_pod(store):
    write_samples(
        store,
        frame(
            counter_rows(HITS, {"pod": "a"}, [0, 10])
            + counter_rows(QUERIES, {"pod": "a"}, [0, 20])
            + counter_rows(HITS, {"pod": "b"}, [0, 10])
            + counter_rows(QUERIES, {"pod": "b"}, [0, 40])
        ),
    )
    rows = rates(store, pod="b")
    assert set(rows.pod) == {"b"}
    assert rows.iloc[0].hit_rate == pytest.approx(0.25)


def test_missing_and_unknown_parameters_are_rejected(store):
    with pytest.raises(ValueError, match="missing parameter end"):
        run_query(store, "hit_rate", start=T0, step=60)
    with pytest.raises(ValueError, match="unknown parameter"):
        run_query(store, "hit_rate", start=T0, end=T0, step=60, gpu_hits=["x"])
    with pytest.raises(ValueError, match="is not a TIMESTAMP"):
        run_query(store, "hit_rate", start="yesterday", end=T0, step=60)
