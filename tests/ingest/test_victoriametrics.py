"""VictoriaMetrics through the same puller as Prometheus: the same stored samples, the same
`hit_rate` and `ttft_quantiles` answers (real VictoriaMetrics 1.79 scraping `kvscope serve-sim`).

Like for like, exactly: VictoriaMetrics scrapes serve-sim with its own -promscrape.config, and the
samples it stored in the compared span are exported (its /api/v1/export, not kvscope's puller)
and backfilled into a real Prometheus with `promtool tsdb create-blocks-from openmetrics`. The two
servers then hold the very same samples, so any difference between the two pulls is the puller's
reading of a server's answers (label-values lookup, matrix layout, window edges), not two servers
scraping at different instants.
"""

from __future__ import annotations

import time

import pandas as pd
import pytest

from dashboard.ingest import prometheus
from dashboard.ingest.config import PrometheusConfig
from dashboard.ingest.matrix_answer import parse_compact_matrix
from dashboard.services.collector import Collector
from dashboard.services.queries import named_query_with_note
from dashboard.store.db import open_store
from tests.ingest.real_vllm import BackfilledPrometheus
from tests.ingest.serve_sim import SimCluster
from tests.ingest.victoria import VictoriaMetrics, backfill_prometheus
from tests.polling import wait_until

SCRAPE_INTERVAL = "500ms"  # NOTE: half a second, so the history the windows need builds up in ~9 s
NUM_SCRAPES = 18  # four 2 s windows back from a second ago, and a spare second
STEP_S = 2
SINCE_S = 120  # reaches back past the first scrape
SAMPLES = (
    "SELECT metric, series_key, epoch_ms(ts) AS ts_ms, value "
    "FROM samples JOIN series USING (series_id) ORDER BY ALL"
)


@pytest.fixture(scope="module")
def victoria(tmp_path_factory):
    """VictoriaMetrics scraping a two-pod serve-sim, with enough scrapes stored."""
    sim = SimCluster(num_pods=2, speed=60)  # NOTE: 2 s windows of 120 simulated s hold requests
    vm = VictoriaMetrics(tmp_path_factory.mktemp("victoria"), sim.targets(), scrape_interval=SCRAPE_INTERVAL)
    try:
        sim.start()
        vm.start()
        wait_until(lambda: vm.num_scrapes() >= NUM_SCRAPES, f"{NUM_SCRAPES} scrapes of each pod", 90, 0.5)
        yield vm
    finally:
        vm.stop()
        sim.stop()


@pytest.fixture(scope="module")
def span(victoria) -> tuple[int, int]:
    """(start, end], whole seconds, ending a second ago, once every scrape in it has arrived."""
    end_s = int(time.time()) - 1
    wait_until(lambda: victoria.scraped_past(end_s), "a scrape of every target after the span's end")
    return end_s - SINCE_S, end_s


@pytest.fixture(scope="module")
def backfilled(victoria, span, tmp_path_factory):
    """A real Prometheus holding exactly the samples VictoriaMetrics stored in the span."""
    start_s, end_s = span
    data_dir = tmp_path_factory.mktemp("prometheus")
    backfill_prometheus(victoria.export(start_s, end_s), start_s * 1000, end_s * 1000, data_dir / "tsdb")
    prom = BackfilledPrometheus({}, data_dir)
    prom.start()
    yield prom
    prom.stop()


def pull(url: str, path, span: tuple[int, int]):
    """A fresh store at path holding one pull of (start, end]; returns the path."""
    start_s, end_s = span
    store = open_store(path)
    try:
        assert Collector(
            store, prometheus_config=PrometheusConfig(url=url), since_s=end_s - start_s
        ).pull_once(end_s)
    finally:
        store.close()
    return path


@pytest.fixture(scope="module")
def stores(victoria, backfilled, span, tmp_path_factory):
    """(VictoriaMetrics pull, Prometheus pull) store paths, over the same span."""
    folder = tmp_path_factory.mktemp("stores")
    return pull(victoria.url, folder / "vm.duckdb", span), pull(backfilled.url, folder / "prom.duckdb", span)


def rows(path) -> list[tuple]:
    store = open_store(path, read_only=True)
    try:
        return store.cursor().execute(SAMPLES).fetchall()
    finally:
        store.close()


def named(path, name: str, span: tuple[int, int], **params) -> pd.DataFrame:
    start_s, end_s = span
    window = {"start": float(end_s - 3 * STEP_S), "end": float(end_s), "step": float(STEP_S)}
    return named_query_with_note(path, name, {**window, **params})[0]


def test_victoriametrics_stores_the_samples_prometheus_stores(stores):
    from_vm, from_prometheus = rows(stores[0]), rows(stores[1])
    assert from_vm == from_prometheus
    metrics = {r[0] for r in from_vm}
    assert {"vllm:prefix_cache_queries_total", "vllm:time_to_first_token_seconds_bucket"} <= metrics
    num_points = pd.Series([r[1] for r in from_vm]).value_counts()
    # every series over the whole span, less the scrapes of the last second (after the span's end)
    assert num_points.min() >= NUM_SCRAPES - 3


def test_hit_rate_from_victoriametrics_equals_the_prometheus_path(stores, span):
    ours, theirs = (named(path, "hit_rate", span) for path in stores)
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    cluster = ours[(ours.pod == "*") & (ours.tier == "gpu")]
    assert len(cluster) >= 3 and cluster.hit_rate.between(0, 1).all()  # windows with requests in them


def test_ttft_quantiles_from_victoriametrics_equal_the_prometheus_path(stores, span):
    ours, theirs = (named(path, "ttft_quantiles", span, q=[0.5, 0.9, 0.99]) for path in stores)
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    assert ours.ttft_s.notna().sum() >= 9  # three quantiles in at least three of the four windows


def test_label_values_lookup_finds_the_same_names_on_both_servers(victoria, backfilled, span):
    names = prometheus.catalog_series_names()
    found = [
        prometheus.present_names(prometheus.connect(PrometheusConfig(url=url)), names, *span)
        for url in (victoria.url, backfilled.url)
    ]
    assert found[0] == found[1]
    assert "vllm:prefix_cache_hits_total" in found[0] and "llm_d_epp_scheduler_attempts_total" in found[0]


def test_victoriametrics_answers_take_the_compact_scanner(victoria, span):
    client = prometheus.connect(PrometheusConfig(url=victoria.url))
    sel = prometheus.selector(["vllm:prefix_cache_queries_total"], ())
    batch = parse_compact_matrix(prometheus.fetch_chunk(client, sel, prometheus.Chunk(*span)))
    assert batch is not None, "VictoriaMetrics's matrix layout fell through to the json reader"
    assert {labels["pod"] for labels in batch.labels} == {"vllm-0", "vllm-1"}


def test_a_pull_up_to_now_gets_samples_newer_than_the_latency_offset(victoria, tmp_path):
    # VictoriaMetrics hides the last 30 s (-search.latencyOffset) from a query near now unless it
    # says nocache=1; raw samples carry their own times, so the puller asks for them.
    victoria.flush()
    now_s = time.time()
    store = open_store(tmp_path / "now.duckdb")
    Collector(store, prometheus_config=PrometheusConfig(url=victoria.url), since_s=60).pull_once(now_s)
    newest = store.cursor().execute("SELECT max(epoch_ms(ts)) / 1000 FROM samples").fetchall()[0][0]
    store.close()
    assert newest > now_s - 5
