"""serve-sim exports what the Overview's explaining panels read, under the real names."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import numpy as np
import pyarrow.parquet as pq
import pytest

from dashboard.services.sample import annotations_table, metrics_table, requests_table
from dashboard.sim.dialects import Dialect
from dashboard.sim.exporter import export_series
from dashboard.sim.scenario import live_story
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from dashboard.store.writes import load_interchange_dir

START = datetime(2026, 12, 2)


def story_store(tmp_path, dialect: Dialect | None = None):
    kwargs = {"dialect": dialect} if dialect else {}
    story = live_story(seed=5, hours=0.5, num_pods=2, **kwargs)
    scrape_s = np.arange(15.0, 1800.0 + 1e-9, 15.0)
    series = export_series(story.trace, story.outcome, story.config, story.spec, scrape_s)
    story = replace(story, scrape_s=scrape_s, series=series)
    for name, table in (
        ("metrics", metrics_table(story, START)),
        ("requests", requests_table(story, START)),
        ("annotations", annotations_table(story, START)),
    ):
        pq.write_table(table, tmp_path / f"{name}.parquet")
    store = open_store(tmp_path / "k.duckdb")
    load_interchange_dir(store, tmp_path)
    return store, series


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    store, series = story_store(tmp_path_factory.mktemp("explain"))
    yield store, series
    store.close()


def test_the_three_prompt_sources_add_up_to_the_prompt_tokens(sim):
    store, _ = sim
    span = {"start": START + timedelta(minutes=30), "end": START + timedelta(minutes=30), "step": 1800.0}
    sources = run_query(store, "overview_prompt_sources", **span)
    by_source = sources[sources.kind == "source"].set_index("source")["tokens"]
    rates = run_query(store, "hit_rate", **span).set_index(["pod", "tier"])
    assert set(by_source.index) == {"local_compute", "local_cache_hit", "external_kv_transfer"}
    assert by_source.sum() == rates.loc[("*", "gpu"), "query_tokens"]
    assert by_source["local_cache_hit"] == rates.loc[("*", "gpu"), "hit_tokens"]


def test_epp_predicted_hit_rate_is_exported_and_compared_with_the_delivered_one(sim):
    store, series = sim
    names = {s.metric for s in series}
    assert {"llm_d_epp_prefix_predicted_cached_tokens_sum", "llm_d_epp_prefix_prompt_tokens_sum"} <= names
    span = {"start": START + timedelta(minutes=10), "end": START + timedelta(minutes=30), "step": 300.0}
    rows = run_query(store, "overview_epp_predicted", **span)
    assert set(rows.series) == {"predicted", "delivered"}
    assert rows.hit_rate.between(0, 1).all()
    pivot = rows.pivot(index="ts", columns="series", values="hit_rate")
    assert (pivot.predicted > 0).all() and (pivot.delivered > 0).all()


def test_a_gaie_epp_exports_no_llm_d_only_predicted_tokens(tmp_path):
    store, series = story_store(tmp_path, Dialect(epp="gaie"))
    store.close()
    assert not [s.metric for s in series if s.metric.startswith("llm_d_")]
