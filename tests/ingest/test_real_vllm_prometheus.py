"""The recorded real vLLM 0.32 scrapes backfilled into a real Prometheus and pulled by kvscope:
kvscope's hit rate and TTFT quantiles equal Prometheus's own over the same samples."""

from __future__ import annotations

import pytest

from dashboard.ingest.config import PrometheusConfig
from dashboard.services.collector import Collector
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from tests.ingest.real_vllm import POD, BackfilledPrometheus, backfill, recorded_scrapes
from tests.ingest.test_prometheus_agreement import promql

HITS, QUERIES = "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"
BUCKETS = "vllm:time_to_first_token_seconds_bucket"


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory):
    scrapes = recorded_scrapes()
    data_dir = tmp_path_factory.mktemp("prom-real")
    backfill(scrapes, POD, data_dir / "tsdb")
    prom = BackfilledPrometheus({}, data_dir)
    prom.start()
    yield prom, scrapes
    prom.stop()


@pytest.fixture(scope="module")
def pulled(prometheus, tmp_path_factory):
    prom, scrapes = prometheus
    store = open_store(tmp_path_factory.mktemp("db") / "real.duckdb")
    now_s = scrapes[-1].ts_s + 60
    collector = Collector(store, prometheus_config=PrometheusConfig(url=prom.url), since_s=3600)
    assert collector.pull_once(now_s) > 0
    yield store
    store.close()


def pairs(scrapes) -> list[tuple[float, float]]:
    """(previous, this) scrape times for scrapes 2..5, and (1, 5) for the whole run."""
    times = [s.ts_s for s in scrapes]
    return [*zip(times, times[1:], strict=False), (times[0], times[-1])]


def ms(seconds: float) -> str:
    """A PromQL duration in whole milliseconds (PromQL durations take no fractions)."""
    return f"{round(seconds * 1000)}ms"


def window(earlier_s: float, at_s: float) -> dict:
    """kvscope's one-row window (at - step, at] holding the earlier scrape."""
    return {"start": at_s, "end": at_s, "step": at_s - earlier_s + 0.5}


def test_every_window_of_scrapes_gives_prometheus_own_hit_rate(prometheus, pulled):
    prom, scrapes = prometheus
    for earlier_s, at_s in pairs(scrapes):
        rows = run_query(pulled, "hit_rate", **window(earlier_s, at_s))
        ours = rows[(rows.pod == "*") & (rows.tier == "gpu")].hit_rate.iloc[0]
        offset = f"offset {ms(at_s - earlier_s)}"
        theirs = promql(
            prom.url, f"sum({HITS} - {HITS} {offset}) / sum({QUERIES} - {QUERIES} {offset})", at_s
        )
        assert ours == pytest.approx(theirs, rel=1e-12)


def test_the_whole_run_hit_rate_matches_prometheus_increase(prometheus, pulled):
    prom, scrapes = prometheus
    first, last = scrapes[0].ts_s, scrapes[-1].ts_s
    rows = run_query(pulled, "hit_rate", **window(first, last))
    ours = rows[(rows.pod == "*") & (rows.tier == "gpu")].hit_rate.iloc[0]
    w = f"[{ms(last - first + 0.5)}]"
    theirs = promql(prom.url, f"sum(increase({HITS}{w})) / sum(increase({QUERIES}{w}))", last)
    assert round(ours, 6) == 0.820656
    # NOTE: increase() extrapolates each series to the window's edges; the ratio moves by < 0.1%.
    assert ours == pytest.approx(theirs, rel=1e-3)


@pytest.mark.parametrize("q", [0.5, 0.9, 0.99])
def test_ttft_quantiles_equal_histogram_quantile_over_the_same_bucket_differences(prometheus, pulled, q):
    prom, scrapes = prometheus
    for earlier_s, at_s in pairs(scrapes):
        rows = run_query(pulled, "ttft_quantiles", q=[q], **window(earlier_s, at_s))
        offset = f"offset {ms(at_s - earlier_s)}"
        theirs = promql(
            prom.url, f"histogram_quantile({q}, sum by (le) ({BUCKETS} - {BUCKETS} {offset}))", at_s
        )
        assert rows.ttft_s.iloc[0] == pytest.approx(theirs, rel=1e-12)


def test_the_whole_run_ttft_p90_matches_histogram_quantile_of_increase(prometheus, pulled):
    prom, scrapes = prometheus
    first, last = scrapes[0].ts_s, scrapes[-1].ts_s
    rows = run_query(pulled, "ttft_quantiles", q=[0.9], **window(first, last))
    w = f"[{ms(last - first + 0.5)}]"
    theirs = promql(prom.url, f"histogram_quantile(0.9, sum by (le) (increase({BUCKETS}{w})))", last)
    assert rows.ttft_s.iloc[0] == pytest.approx(theirs, rel=1e-9)
