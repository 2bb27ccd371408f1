"""A real vLLM 0.32 CPU server, scraped by a real Prometheus and pulled by kvscope: kvscope's hit
rate and TTFT quantiles equal Prometheus's own and the server's counters. `make test-vllm`."""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request

import pytest

from dashboard.ingest.config import PrometheusConfig
from dashboard.services.collector import Collector
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from tests.ingest.live import PrometheusServer
from tests.ingest.test_prometheus_agreement import promql
from tests.vllm.real_server import VllmServer, build_model, counter, drive_load, vllm_venv

pytestmark = pytest.mark.vllm

POD = "vllm-0"
HITS, QUERIES = "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"
TTFT = "vllm:time_to_first_token_seconds"
NUM_COMPLETIONS, NUM_SESSIONS, TURNS = 24, 4, 4


def scraped_value(prom: PrometheusServer, name: str, want: float, timeout_s: float = 60) -> float:
    """Poll until Prometheus's newest sample of name equals want; the sample's own timestamp."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        qs = urllib.parse.urlencode(
            {"query": f'timestamp({name}{{pod="{POD}"}}) and {name}{{pod="{POD}"}} == {want}'}
        )
        with urllib.request.urlopen(f"{prom.url}/api/v1/query?{qs}", timeout=10) as r:
            result = json.load(r)["data"]["result"]
        if result:
            return float(result[0]["value"][1])
        time.sleep(0.5)
    raise AssertionError(f"Prometheus never scraped {name} = {want}")


@pytest.fixture(scope="module")
def run(real_vllm_dir, tmp_path_factory):
    """Start vLLM and Prometheus, drive the load, pull into a store; yield everything measured."""
    venv = vllm_venv()
    work = tmp_path_factory.mktemp("vllm")
    recipe = real_vllm_dir / "recipe"
    model = build_model(venv, recipe, work / "model")
    server = VllmServer(venv, model, recipe / "serve.sh", work / "vllm.log")
    server.start()
    prom = PrometheusServer({POD: server.port}, work / "prom", scrape_interval="1s")
    (work / "prom").mkdir()
    prom.start()
    store = open_store(work / "kvscope.duckdb")
    try:
        before = server.metrics_text()
        t0 = scraped_value(prom, QUERIES, counter(before, QUERIES))
        sent = drive_load(server, NUM_COMPLETIONS, NUM_SESSIONS, TURNS)
        after = server.metrics_text()
        t1 = scraped_value(prom, QUERIES, counter(after, QUERIES))
        collector = Collector(store, prometheus_config=PrometheusConfig(url=prom.url), since_s=3600)
        assert collector.pull_once(time.time()) > 0
        yield {
            "prom": prom,
            "store": store,
            "before": before,
            "after": after,
            "t0": t0,
            "t1": t1,
            "sent": sent,
        }
    finally:
        store.close()
        prom.stop()
        server.stop()


def whole_run(run) -> dict:
    """kvscope's one-row window (t0, t1] widened by half a second to hold the sample at t0."""
    return {"start": run["t1"], "end": run["t1"], "step": run["t1"] - run["t0"] + 0.5}


def ms(seconds: float) -> str:
    return f"{round(seconds * 1000)}ms"


def test_hit_rate_equals_the_server_counters_and_prometheus(run):
    hits = counter(run["after"], HITS) - counter(run["before"], HITS)
    queries = counter(run["after"], QUERIES) - counter(run["before"], QUERIES)
    assert queries > 0 and hits > 0.5 * queries  # shared prefixes and growing sessions hit the cache
    rows = run_query(run["store"], "hit_rate", **whole_run(run))
    ours = rows[(rows.tier == "gpu")].set_index("pod")
    assert ours.loc["*", "hit_tokens"] == hits and ours.loc["*", "query_tokens"] == queries
    assert ours.loc[POD, "hit_rate"] == ours.loc["*", "hit_rate"] == pytest.approx(hits / queries, rel=1e-15)
    offset = f"offset {ms(run['t1'] - run['t0'])}"
    theirs = promql(
        run["prom"].url, f"sum({HITS} - {HITS} {offset}) / sum({QUERIES} - {QUERIES} {offset})", run["t1"]
    )
    assert ours.loc["*", "hit_rate"] == pytest.approx(theirs, rel=1e-12)


def test_every_request_is_counted_once(run):
    rows = run_query(run["store"], "ttft_quantiles", q=[0.5], **whole_run(run))
    served = counter(run["after"], f"{TTFT}_count") - counter(run["before"], f"{TTFT}_count")
    assert served == run["sent"] == rows.num_requests.iloc[0]


@pytest.mark.parametrize("q", [0.5, 0.9, 0.99])
def test_ttft_quantiles_equal_histogram_quantile(run, q):
    rows = run_query(run["store"], "ttft_quantiles", q=[q], **whole_run(run))
    offset = f"offset {ms(run['t1'] - run['t0'])}"
    bucket = f"{TTFT}_bucket"
    theirs = promql(
        run["prom"].url, f"histogram_quantile({q}, sum by (le) ({bucket} - {bucket} {offset}))", run["t1"]
    )
    assert theirs is not None and theirs > 0
    assert rows.ttft_s.iloc[0] == pytest.approx(theirs, rel=1e-12)
