"""The catalog read through old and new naming: identical simulated data, exported the way vLLM 0.10 /
0.20 / 0.34, GAIE and llm-d-router EPPs and LMCache name it, scraped as text and parsed by
prometheus_client's parser, must give the same hit rates, TTFT, routing and traffic."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pandas as pd
import pytest

from dashboard.core import profiles
from dashboard.core.types import SeriesSamples
from dashboard.ingest.scrape import parse_exposition
from dashboard.services import overview
from dashboard.services.serve_sim import without_pod_label
from dashboard.sim.dialects import Dialect
from dashboard.sim.exporter import epp_series, pod_series
from dashboard.sim.exposition import render
from dashboard.sim.scenario import live_story
from dashboard.store.db import Store, open_store
from dashboard.store.queries import run_query
from dashboard.store.writes import write_series_samples

START = datetime(2026, 12, 1)
# NOTE: 60 s scrapes (not 15 s) quarter the pages parsed; each 5-minute window still holds five
# scrapes of every name variant, and a windowed increase needs two.
HOURS, NUM_PODS, SCRAPE_S = 1.0, 3, 60.0
NEW = Dialect()
OLD = Dialect(vllm="0.10", epp="gaie")
MIDDLE = Dialect(vllm="0.20")
LMCACHE = Dialect(connector="lmcache")


def scraped_store(tmp_path, dialect: Dialect) -> Store:
    """A store filled by parsing every target's text exposition at every scrape of a 1 h cluster."""
    story = live_story(seed=3, hours=HOURS, num_pods=NUM_PODS, restarts=((1800.0, 1),), dialect=dialect)
    scrape_s = np.arange(SCRAPE_S, HOURS * 3600 + 1e-9, SCRAPE_S)
    targets = [
        (f"vllm-{p}", pod_series(story.trace, story.outcome, story.config, story.spec, p, scrape_s))
        for p in range(NUM_PODS)
    ]
    targets.append(("epp-0", epp_series(story.trace, story.outcome, story.spec, scrape_s)))
    frames = [
        parse_exposition(render(without_pod_label(series), i), pod, START + timedelta(seconds=float(t)))
        for pod, series in targets
        for i, t in enumerate(scrape_s)
    ]
    store = open_store(tmp_path / f"{dialect.vllm}-{dialect.epp}-{dialect.connector}.duckdb")
    write_series_samples(store, SeriesSamples.concat(frames))
    return store


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[Dialect, Store]:
    folder = tmp_path_factory.mktemp("naming")
    return {d: scraped_store(folder, d) for d in (NEW, OLD, MIDDLE, LMCACHE)}


WINDOW = {"start": START + timedelta(minutes=5), "end": START + timedelta(minutes=60), "step": 300.0}


def _query(store: Store, name: str, **extra) -> pd.DataFrame:
    return run_query(store, name, **WINDOW, **extra).reset_index(drop=True)


def test_stores_really_hold_different_names(stores):
    new = set(run_query(stores[NEW], "metric_names")["metric"])
    old = set(run_query(stores[OLD], "metric_names")["metric"])
    assert "vllm:gpu_prefix_cache_hits_total" in old and "vllm:prefix_cache_hits_total" not in old
    assert {"llm_d_epp_scheduler_attempts_total", "inference_extension_scheduler_attempts_total"} <= new
    assert "llm_d_epp_scheduler_attempts_total" not in old


def test_gpu_hit_rate_is_the_same_in_vllm_0_10_and_0_34_naming(stores):
    new, old = (_query(stores[d], "hit_rate") for d in (NEW, OLD))
    new_gpu = new[new.tier == "gpu"].reset_index(drop=True)
    assert len(new_gpu) > 0
    pd.testing.assert_frame_equal(old, new_gpu)


def test_ttft_and_kv_usage_are_the_same_in_old_and_new_naming(stores):
    for name, extra in (("ttft_quantiles", {"q": [0.5, 0.9, 0.99]}), ("overview_kv_usage", {})):
        new, old = (_query(stores[d], name, **extra) for d in (NEW, OLD))
        assert len(new) > 0
        pd.testing.assert_frame_equal(old, new)


def test_routing_counts_each_request_once_when_the_epp_emits_old_and_new_names(stores):
    new, old = (_query(stores[d], "overview_routing") for d in (NEW, OLD))
    pd.testing.assert_frame_equal(old, new)
    # each window's increase spans its first to its last scrape: arrivals in (end - step + scrape, end]
    story = live_story(seed=3, hours=HOURS, num_pods=NUM_PODS, restarts=((1800.0, 1),))
    arrivals = story.trace.arrival_s
    ends = (pd.to_datetime(new["ts"].unique()) - pd.Timestamp(START)).total_seconds()
    expected = sum(int(((arrivals > e - WINDOW["step"] + SCRAPE_S) & (arrivals <= e)).sum()) for e in ends)
    assert new["num_requests"].sum() == pytest.approx(expected)
    assert new.groupby("ts")["share"].sum().to_numpy() == pytest.approx(1.0)


def test_offload_traffic_is_read_from_the_per_direction_counter_only_where_flat_names_are_absent(stores):
    new, middle = (_query(stores[d], "overview_offload_traffic") for d in (NEW, MIDDLE))
    assert new["bytes_per_s"].sum() > 0
    pd.testing.assert_frame_equal(middle, new)


def test_lmcache_stack_shows_its_hit_rate_and_resident_bytes(stores):
    rates = _query(stores[LMCACHE], "hit_rate")
    lm, offload = (
        rates[rates.tier == t].drop(columns="tier").reset_index(drop=True) for t in ("lmcache", "offload")
    )
    assert len(lm) > 0
    # the simulator's LMCache serves exactly vLLM's connector lookups, so both views agree
    pd.testing.assert_frame_equal(lm, offload)
    occupancy = _query(stores[LMCACHE], "overview_tier_occupancy")
    cpu = occupancy[occupancy.tier == "cpu"]
    assert cpu["resident_bytes"].max() > 0
    story = live_story(seed=3, hours=HOURS, num_pods=NUM_PODS, dialect=LMCACHE)
    capacity_bytes = (
        story.config.tiers[1].capacity_blocks
        * story.trace.block_tokens
        * profiles.model(story.config.model).kv_bytes_per_token
    )
    assert (cpu["resident_bytes"] <= capacity_bytes).all()


def test_missing_panels_name_what_the_stack_needs(stores):
    keys = ("lmcache_hit_tokens", "kv_offload_store_bytes", "kv_offload_transfer_bytes", "prefix_cache_hits")
    offloading = overview.missing_metrics(stores[NEW], keys)
    lmcache = overview.missing_metrics(stores[LMCACHE], keys)
    old = overview.missing_metrics(stores[OLD], keys)
    assert set(offloading) == {"lmcache_hit_tokens"} and "LMCache" in offloading["lmcache_hit_tokens"]
    assert set(lmcache) == {"kv_offload_store_bytes", "kv_offload_transfer_bytes"}
    assert "OffloadingConnector" in lmcache["kv_offload_store_bytes"]
    assert "prefix_cache_hits" not in old  # read from the vLLM 0.10 name
