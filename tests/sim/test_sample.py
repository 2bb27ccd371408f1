"""The simulated cluster: deterministic sample files, Prometheus-shaped counters, the story."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pyarrow.parquet as pq
import pytest

from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.services.sample import FILES, write_sample
from dashboard.sim.exporter import TTFT_BUCKETS
from dashboard.sim.scenario import sample_story
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from tests.sample_store import sample_store as copy_of_sample_store


@pytest.fixture(scope="module")
def short_story():
    return sample_story(seed=3, hours=0.5)


def test_sample_regeneration_is_bit_identical_for_a_seed(tmp_path):
    write_sample(tmp_path / "a", seed=5, hours=0.5)
    write_sample(tmp_path / "b", seed=5, hours=0.5)
    for name in FILES:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_another_seed_gives_another_workload(short_story):
    assert sample_story(seed=4, hours=0.5).trace.num_requests != short_story.trace.num_requests


def test_counters_only_fall_at_the_pod_restart(short_story):
    restart_s, restart_pod = short_story.spec.restarts[0]
    restart_name = short_story.spec.pod_names[restart_pod]
    for s in short_story.series:
        if not s.metric.endswith("_total") and not s.metric.endswith(("_bucket", "_count", "_sum")):
            continue
        drops = np.flatnonzero(np.diff(s.values) < 0)
        if drops.size:
            assert s.labels["pod"] == restart_name, s.metric
            assert np.all(short_story.scrape_s[drops] < restart_s) and np.all(
                short_story.scrape_s[drops + 1] >= restart_s
            )


def test_ttft_histogram_uses_vllm_buckets_and_counts_every_first_token(short_story):
    buckets = [
        s
        for s in short_story.series
        if s.metric == "vllm:time_to_first_token_seconds_bucket" and s.labels["pod"] == "vllm-0"
    ]
    bounds = [s.labels["le"] for s in buckets]
    assert bounds == [repr(float(b)) for b in TTFT_BUCKETS] + ["+Inf"]
    count = next(
        s
        for s in short_story.series
        if s.metric == "vllm:time_to_first_token_seconds_count" and s.labels["pod"] == "vllm-0"
    )
    out, tr = short_story.outcome, short_story.trace
    first_token = tr.arrival_s + out.ttft_s
    last = short_story.scrape_s[-1]
    expected = np.sum((out.pod == 0) & (first_token <= last))
    assert count.values[-1] == expected  # pod 0 never restarts
    assert buckets[-1].values[-1] == count.values[-1]


def test_prefix_counters_are_token_weighted_like_vllm(short_story):
    queries = next(
        s
        for s in short_story.series
        if s.metric == "vllm:prefix_cache_queries_total" and s.labels["pod"] == "vllm-1"
    )
    hits = next(
        s
        for s in short_story.series
        if s.metric == "vllm:prefix_cache_hits_total" and s.labels["pod"] == "vllm-1"
    )
    assert np.all(hits.values <= queries.values)
    tr, out = short_story.trace, short_story.outcome
    done = (out.pod == 1) & (tr.arrival_s + out.ttft_s <= short_story.scrape_s[-1])
    assert queries.values[-1] == tr.input_tokens[done].sum()


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory):
    db = tmp_path_factory.mktemp("sample") / "s.duckdb"
    copy_of_sample_store(db)
    store = open_store(db, read_only=True)
    yield store
    store.close()


def cluster_gpu_rate(store, start: str, end: str) -> float:
    rows = run_query(
        store,
        "hit_rate",
        start=end,
        end=end,
        step=(datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds(),
    )
    return float(rows[(rows.pod == "*") & (rows.tier == "gpu")].hit_rate.iloc[0])


def test_committed_sample_tells_the_routing_story(sample_store):
    before = cluster_gpu_rate(sample_store, "2026-11-30T00:15:00", "2026-11-30T02:00:00")
    after = cluster_gpu_rate(sample_store, "2026-11-30T02:15:00", "2026-11-30T04:00:00")
    assert after >= before + 0.2


def test_committed_sample_burst_moves_reuse_into_the_cpu_tier(sample_store):
    rows = run_query(
        sample_store, "hit_rate", start="2026-11-30T01:00:00", end="2026-11-30T06:00:00", step=3600
    )
    offload = rows[(rows.pod == "*") & (rows.tier == "offload")].set_index("ts").hit_tokens
    burst = offload[datetime(2026, 11, 30, 6)]
    assert burst > 10 * offload[datetime(2026, 11, 30, 4)]
    ttft = (
        run_query(
            sample_store,
            "ttft_quantiles",
            start="2026-11-30T04:00:00",
            end="2026-11-30T06:00:00",
            step=3600,
            q=[0.99],
        )
        .set_index("ts")
        .ttft_s
    )
    assert ttft[datetime(2026, 11, 30, 6)] > 2 * ttft[datetime(2026, 11, 30, 5)]


def test_committed_sample_has_the_three_events_and_fits_the_size_budget():
    notes = pq.read_table(SAMPLE_DATA_DIR / "annotations.parquet").to_pylist()
    assert [n["kind"] for n in notes] == ["routing", "restart", "burst"]
    assert sum((SAMPLE_DATA_DIR / f).stat().st_size for f in FILES) <= 25_000_000


def test_committed_sample_has_cpu_tier_hits_only_around_the_burst(sample_store):
    rows = run_query(
        sample_store, "hit_rate", start="2026-11-30T00:30:00", end="2026-11-30T06:00:00", step=1800
    )
    offload = rows[(rows.pod == "*") & (rows.tier == "offload")].set_index("ts").hit_tokens
    burst = offload[datetime(2026, 11, 30, 5, 30)]
    before = offload[offload.index <= datetime(2026, 11, 30, 5)]
    assert len(before) == 10 and before.max() < 0.01 * burst


def test_committed_sample_has_one_restart_and_its_pod_counters_drop_there(sample_store):
    notes = run_query(sample_store, "annotations", start="2026-11-30T00:00:00", end="2026-11-30T06:00:00")
    restarts = notes[notes.kind == "restart"]
    assert len(restarts) == 1
    drops = (
        sample_store.cursor()
        .execute(
            "SELECT DISTINCT pod FROM (SELECT pod, value < lag(value) OVER (PARTITION BY series_id ORDER BY ts) AS fell "
            "FROM samples JOIN series USING (series_id) WHERE metric = 'vllm:prefix_cache_queries_total') WHERE fell"
        )
        .fetchall()
    )
    assert [d[0] for d in drops] == ["vllm-3"] and "vllm-3" in restarts.text.iloc[0]


def test_committed_sample_is_what_kvscope_sample_writes_today(tmp_path):
    write_sample(tmp_path, seed=0, hours=6)  # the command sample_data/README.md names
    for name in FILES:
        assert pq.read_table(tmp_path / name).equals(pq.read_table(SAMPLE_DATA_DIR / name)), name
