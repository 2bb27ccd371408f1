"""The recorded real vLLM 0.32 scrapes through kvscope's direct-scrape collector: the README's figures hold."""

from __future__ import annotations

import pytest

from dashboard.core import catalog
from dashboard.ingest.scrape import Target
from dashboard.services.collector import Collector
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from tests.ingest.real_vllm import (
    LMCACHE_FILE,
    OFFLOAD_FILE,
    POD,
    SCRAPE_FILES,
    RecordedExporter,
    recorded_scrapes,
    sample_names,
)


def collect_scrapes(store, texts_at: list[tuple[float, str]], pod: str) -> None:
    """Serve each text in turn on 127.0.0.1 and let the collector scrape it at its time."""
    exporter = RecordedExporter()
    exporter.start()
    try:
        collector = Collector(store, targets=(Target(exporter.url, pod),))
        for ts_s, text in texts_at:
            exporter.text = text
            collector.pull_once(ts_s)
    finally:
        exporter.stop()


@pytest.fixture(scope="module")
def scraped(tmp_path_factory):
    store = open_store(tmp_path_factory.mktemp("real") / "direct.duckdb")
    collect_scrapes(store, [(r.ts_s, r.text) for r in recorded_scrapes()], POD)
    yield store, recorded_scrapes()
    store.close()


def whole_run(scrapes) -> dict:
    """One window (scrape 1, scrape 5]: scrape 1 just inside it, so every pair counts."""
    first, last = scrapes[0].ts_s, scrapes[-1].ts_s
    return {"start": last, "end": last, "step": last - first + 0.5}


def test_gpu_hit_rate_from_scrape_1_to_5_is_the_readmes_0_820656(scraped):
    store, scrapes = scraped
    rows = run_query(store, "hit_rate", **whole_run(scrapes))
    cluster = rows[(rows.pod == "*") & (rows.tier == "gpu")].iloc[0]
    assert (cluster.hit_tokens, cluster.query_tokens) == (32_832, 40_007)
    assert round(cluster.hit_rate, 6) == 0.820656


def test_ttft_quantiles_over_the_120_requests_are_the_readmes(scraped):
    store, scrapes = scraped
    rows = run_query(store, "ttft_quantiles", q=[0.5, 0.9, 0.99], **whole_run(scrapes)).set_index("q")
    assert rows.num_requests.tolist() == [120, 120, 120]
    assert rows.ttft_s[0.5] == pytest.approx(0.14, abs=0.01)
    assert rows.ttft_s[0.9] == pytest.approx(0.38, abs=0.01)
    assert rows.ttft_s[0.99] == pytest.approx(0.9, abs=0.05)


def test_no_connector_means_no_offload_hit_rate_row(scraped):
    # The external-cache counters are exported at 0 with no connector: no queries, no row.
    store, scrapes = scraped
    rows = run_query(store, "hit_rate", **whole_run(scrapes))
    assert set(rows.tier) == {"gpu"}


def test_every_catalog_metric_the_scrapes_hold_resolves_in_the_store(scraped):
    store, _ = scraped
    stored = set(run_query(store, "metric_names").metric)
    exposed = sample_names(SCRAPE_FILES[-1])
    held = [k for k in catalog.CATALOG if catalog.resolve(k, exposed)]
    assert len(held) >= 10
    assert {k: catalog.resolve(k, stored) for k in held} == {k: catalog.resolve(k, exposed) for k in held}


def test_the_engines_labels_arrive_with_the_pod_the_collector_gives(scraped):
    store, _ = scraped
    labels = (
        store.cursor()
        .execute("SELECT labels FROM series WHERE metric = 'vllm:prefix_cache_hits_total'")
        .fetchall()[0][0]
    )
    assert labels == {"engine": "0", "model_name": "tiny-qwen2", "pod": POD}


@pytest.fixture(scope="module")
def logger_files(tmp_path_factory):
    """vLLM 0.33's offload stat-logger file and LMCache 0.5.6's logger file, scraped like pods."""
    store = open_store(tmp_path_factory.mktemp("real") / "loggers.duckdb")
    collect_scrapes(store, [(1_800_000_000.0, OFFLOAD_FILE.read_text())], "offload-0")
    collect_scrapes(store, [(1_800_000_000.0, LMCACHE_FILE.read_text())], "lmcache-0")
    yield store
    store.close()


@pytest.mark.parametrize("path", [OFFLOAD_FILE, LMCACHE_FILE], ids=["offload", "lmcache"])
def test_every_catalog_metric_a_logger_file_holds_resolves_in_the_store(logger_files, path):
    stored = set(run_query(logger_files, "metric_names").metric)
    exposed = sample_names(path)
    held = [k for k in catalog.CATALOG if catalog.resolve(k, exposed)]
    assert held
    assert all(catalog.resolve(k, stored) == catalog.resolve(k, exposed) for k in held)


def test_the_offload_tiers_capacity_is_read_from_kv_offload_config_info(logger_files):
    rows = run_query(logger_files, "overview_capacity").set_index("pod")
    assert rows.cpu_capacity_bytes["offload-0"] == 1_073_741_824
    assert rows.cpu_capacity_tokens["offload-0"] == 65_536
    assert rows.num_gpu_blocks["offload-0"] == 4096


def test_lmcaches_resident_cpu_bytes_are_read_from_its_logger(logger_files):
    rows = run_query(
        logger_files, "overview_tier_occupancy", start=1_800_000_000.0, end=1_800_000_000.0, step=60.0
    )
    cpu = rows[rows.tier.str.contains("cpu", case=False)]
    assert cpu.resident_bytes.tolist() == [123_456_789]
