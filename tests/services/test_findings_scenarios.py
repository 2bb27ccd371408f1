"""Findings on serve-sim scenarios built here: the engine simulates a cluster offline, the exporter
writes what Prometheus would have scraped, and findings must name what the scenario did."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from dashboard.core.types import ClusterEvent, RouterConfig
from dashboard.engine.replay import simulate
from dashboard.services.findings import findings
from dashboard.services.sample import annotations_table, metrics_table, requests_table
from dashboard.sim.exporter import export_series
from dashboard.sim.scenario import HOUR_S, Story, live_story
from dashboard.store.db import Store, open_store
from dashboard.store.writes import load_interchange_dir

START = datetime(2026, 12, 1)
HOURS = 2.0
NUM_PODS = 4


def scraped(story: Story, scrape_interval_s: float = 15.0) -> Story:
    """The story with the series serve-sim would have served at every scrape."""
    scrape_s = np.arange(scrape_interval_s, HOURS * HOUR_S + 1e-9, scrape_interval_s)
    series = export_series(story.trace, story.outcome, story.config, story.spec, scrape_s)
    return replace(story, scrape_s=scrape_s, series=series)


def stored(story: Story, folder: Path) -> Store:
    folder.mkdir()
    for name, table in (
        ("metrics.parquet", metrics_table(story, START)),
        ("requests.parquet", requests_table(story, START)),
        ("annotations.parquet", annotations_table(story, START)),
    ):
        pq.write_table(table, folder / name)
    store = open_store(folder / "k.duckdb")
    load_interchange_dir(store, folder)
    return store


@pytest.fixture(scope="module")
def restart_store(tmp_path_factory):
    story = scraped(live_story(seed=3, hours=HOURS, num_pods=NUM_PODS, restarts=((HOUR_S, 1),)))
    store = stored(story, tmp_path_factory.mktemp("restart") / "data")
    yield store
    store.close()


@pytest.fixture(scope="module")
def regression_store(tmp_path_factory):
    """A prefix-aware cluster whose EPP falls back to round robin at 1 h: the hit rate falls."""
    base = live_story(seed=4, hours=HOURS, num_pods=NUM_PODS)
    events = (ClusterEvent(HOUR_S, "router", router=RouterConfig("round_robin")),)
    story = scraped(replace(base, events=events, outcome=simulate(base.trace, base.config, events)))
    store = stored(story, tmp_path_factory.mktemp("regression") / "data")
    yield store
    store.close()


def test_a_serve_sim_restart_is_found_as_a_restart_at_its_time(restart_store):
    found = findings(restart_store, START + timedelta(minutes=30), START + timedelta(hours=HOURS))
    restarts = [f for f in found if f.cause == "restart"]
    assert [f.change_ts for f in restarts] == [START + timedelta(hours=1)]
    assert "vllm-1" in restarts[0].evidence[0].text


def test_a_routing_regression_is_found_as_a_hit_rate_fall_caused_by_routing(regression_store):
    found = findings(regression_store, START + timedelta(minutes=30), START + timedelta(hours=HOURS))
    assert len(found) == 1, [(f.change_ts, f.summary) for f in found]
    (fall,) = found
    assert "hit_rate" in fall.signals and "fell" in fall.summary
    assert fall.cause == "routing"
    assert START + timedelta(hours=1) <= fall.change_ts <= START + timedelta(hours=1, minutes=10)


def test_a_steady_serve_sim_cluster_has_no_finding(restart_store):
    assert findings(restart_store, START + timedelta(minutes=30), START + timedelta(minutes=59)) == []
