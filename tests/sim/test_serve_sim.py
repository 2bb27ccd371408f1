"""serve-sim end to end: live /metrics per pod and EPP, a valid Prometheus config, restarts that reset."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from dashboard.ingest.config import PrometheusConfig
from dashboard.services.collector import Collector
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from tests.ingest.live import PrometheusServer, free_port
from tests.polling import wait_until

REPO = Path(__file__).resolve().parents[2]


def scrape(port: int) -> dict[tuple, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
    }


def wait_for_port(port: int, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            scrape(port)
            return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"serve-sim did not answer on port {port}")


def wait_for_reset_seen(prom_url: str, pod: str, timeout_s: float = 90) -> None:
    """Poll Prometheus until pod's query counter has reset and 5 s of scrapes followed the reset."""
    series = f'vllm:prefix_cache_queries_total{{pod="{pod}"}}'
    query = f"resets({series}[5m]) > 0 unless resets({series}[5s]) > 0"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        qs = urllib.parse.urlencode({"query": query})
        with urllib.request.urlopen(f"{prom_url}/api/v1/query?{qs}", timeout=5) as resp:
            if json.load(resp)["data"]["result"]:
                return
        time.sleep(0.5)
    raise AssertionError(f"Prometheus saw no counter reset of {pod} within {timeout_s} s")


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    port = free_port(3)  # 2 pods and the EPP: P … P+2
    config = tmp_path_factory.mktemp("sim") / "prometheus.yml"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dashboard",
            "serve-sim",
            "--pods",
            "2",
            "--port",
            str(port),
            "--speed",
            "20",
            "--hours",
            "1",
            "--restart",
            "0@160",
            "--prometheus-config",
            str(config),
            "--scrape-interval",
            "1s",
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # NOTE: Prometheus scrapes from the start, so it sees the restart at 160 simulated s (8 s here)
    # whichever test runs first.
    prom = PrometheusServer({"vllm-0": port, "vllm-1": port + 1}, tmp_path_factory.mktemp("sim-prom"))
    try:
        wait_for_port(port + 2)
        prom.start()
        yield port, config, prom, time.time()
    finally:
        prom.stop()
        proc.terminate()
        proc.wait(timeout=20)


def test_pods_and_epp_serve_growing_counters(sim):
    port = sim[0]
    first = scrape(port)
    key = next(k for k in first if k[0] == "vllm:prefix_cache_queries_total")
    wait_until(lambda: scrape(port)[key] > first[key], "the query counter to grow")
    assert all("pod" not in dict(k[1]) for k in first), "pod is a target label, not an exposed one"
    epp = scrape(port + 2)
    assert {dict(k[1])["endpoint_name"] for k in epp if k[0] == "llm_d_epp_scheduler_attempts_total"} == {
        "vllm-0",
        "vllm-1",
    }


def test_prometheus_config_is_accepted_by_promtool(sim):
    config = sim[1]
    promtool = shutil.which("promtool")
    if promtool is None:
        if os.environ.get("CI"):
            pytest.fail("promtool is missing in CI (.ci/run installs the prometheus package)")
        pytest.skip("needs promtool: apt-get install prometheus")
    result = subprocess.run([promtool, "check", "config", str(config)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "pod: 'vllm-1'" in config.read_text()


def test_restart_through_prometheus_gives_no_negative_or_spiking_rate(sim, tmp_path):
    _, _, prom, started_s = sim
    wait_for_reset_seen(prom.url, "vllm-0")
    store = open_store(tmp_path / "s.duckdb")
    now_s = time.time()
    Collector(store, prometheus_config=PrometheusConfig(url=prom.url), since_s=60).pull_once(now_s)
    prom.stop()
    dropped = (
        store.cursor()
        .execute(
            "SELECT count(*) FROM (SELECT value < lag(value) OVER (ORDER BY ts) AS fell FROM samples "
            "JOIN series USING (series_id) WHERE metric = 'vllm:prefix_cache_queries_total' AND pod = 'vllm-0') "
            "WHERE fell"
        )
        .fetchall()[0][0]
    )
    assert dropped >= 1, "the restart should show as a counter drop in the raw samples"
    rows = run_query(store, "hit_rate", start=started_s, end=now_s - 1, step=4)
    assert len(rows) and rows.hit_rate.between(0, 1).all()
    store.close()
