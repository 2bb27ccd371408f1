"""Pulled into DuckDB, our SQL gives the numbers Prometheus's own PromQL gives (real server)."""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request
from datetime import UTC, datetime

import pytest

from dashboard.ingest.config import PrometheusConfig
from dashboard.services.collector import Collector
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from tests.polling import wait_until

WINDOWS_S = (10, 20)


def promql(url: str, query: str, at_s: float) -> float | None:
    qs = urllib.parse.urlencode({"query": query, "time": f"{at_s:.3f}"})
    with urllib.request.urlopen(f"{url}/api/v1/query?{qs}", timeout=10) as resp:
        result = json.load(resp)["data"]["result"]
    return float(result[0]["value"][1]) if result else None


@pytest.fixture(scope="module")
def pulled(live_stack, tmp_path_factory):
    """A store holding one pull that ends at end_s, once Prometheus holds every sample up to it:
    the store and PromQL then read the same samples, and a second pull finds nothing new."""
    store = open_store(tmp_path_factory.mktemp("db") / "live.duckdb")
    end_s = float(int(time.time()) - 2)
    wait_until(lambda: live_stack.scraped_past(end_s), "a scrape of every pod after the window's end")
    collector = Collector(store, prometheus_config=PrometheusConfig(url=live_stack.url), since_s=120)
    assert collector.pull_once(end_s) > 0
    yield store, end_s
    store.close()


# NOTE: per pod, because that is where the two must agree to the last digits. Prometheus's rate()
# extrapolates each series to the window's edges by a factor set by its first and last sample
# times; every series of one pod is scraped at the same instants, so the factor cancels in a
# pod's ratio and quantile, but differs between pods (scrape offsets, and their jitter on a busy
# machine), which moves a sum over pods by up to a few percent. The cluster row is checked as
# the sum of its pods' increases, which is what PromQL's sum would be without extrapolation.
PODS = ("pod-a", "pod-b")


def window_ends(rows) -> list[float]:
    return sorted({ts.replace(tzinfo=UTC).timestamp() for ts in rows.ts})


@pytest.mark.parametrize("window_s", WINDOWS_S)
def test_hit_rate_sql_agrees_with_promql_for_each_pod(live_stack, pulled, window_s):
    store, end_s = pulled
    rows = run_query(store, "hit_rate", start=end_s - 2 * window_s, end=end_s, step=window_s)
    rows = rows[rows.tier == "gpu"]
    ends = window_ends(rows)
    assert len(ends) >= 2
    for at_s in ends:
        at = rows[rows.ts == datetime.fromtimestamp(at_s, UTC).replace(tzinfo=None)]
        for pod in PODS:
            expected = promql(
                live_stack.url,
                f'sum(rate(vllm:prefix_cache_hits_total{{pod="{pod}"}}[{window_s}s])) / '
                f'sum(rate(vllm:prefix_cache_queries_total{{pod="{pod}"}}[{window_s}s]))',
                at_s,
            )
            assert expected is not None
            assert at[at.pod == pod].hit_rate.item() == pytest.approx(expected, rel=1e-9)
        pods, cluster = at[at.pod != "*"], at[at.pod == "*"]
        assert cluster.hit_rate.item() == pytest.approx(
            pods.hit_tokens.sum() / pods.query_tokens.sum(), rel=1e-12
        )


@pytest.mark.parametrize("window_s", WINDOWS_S)
def test_ttft_p90_sql_agrees_with_histogram_quantile_for_each_pod(live_stack, pulled, window_s):
    store, end_s = pulled
    for pod in PODS:
        rows = run_query(
            store, "ttft_quantiles", start=end_s - 2 * window_s, end=end_s, step=window_s, q=[0.9], pod=pod
        )
        rows = rows[rows.ttft_s.notna()]
        assert len(rows) >= 2
        for row in rows.itertuples():
            expected = promql(
                live_stack.url,
                f"histogram_quantile(0.9, sum by (le) "
                f'(rate(vllm:time_to_first_token_seconds_bucket{{pod="{pod}"}}[{window_s}s])))',
                row.ts.replace(tzinfo=UTC).timestamp(),
            )
            assert row.ttft_s == pytest.approx(expected, rel=1e-9)


def test_pulling_the_same_window_twice_stores_each_sample_once(live_stack, pulled):
    store, end_s = pulled
    count = store.cursor().execute("SELECT count(*) FROM samples").fetchall()[0][0]
    again = Collector(store, prometheus_config=PrometheusConfig(url=live_stack.url), since_s=120)
    assert again.pull_once(end_s) == 0
    assert store.cursor().execute("SELECT count(*) FROM samples").fetchall()[0][0] == count


def test_collector_state_reports_lag_and_no_error(live_stack, pulled):
    store, _ = pulled
    collector = Collector(store, prometheus_config=PrometheusConfig(url=live_stack.url), since_s=120)
    collector.pull_once()
    state = collector.state()
    assert state.last_error is None
    assert 0 <= state.lag_s(datetime.now(tz=UTC).replace(tzinfo=None)) < 10
