"""The collector survives outages and kills, never stores a sample twice, and never shows secrets."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.ingest.config import PrometheusConfig, load_config
from dashboard.ingest.prometheus import MAX_POINTS_PER_SERIES, plan_chunks
from dashboard.ingest.scrape import Target
from dashboard.services.collector import Collector
from dashboard.store.db import open_store
from tests.ingest.live import TcpRelay
from tests.polling import wait_until

REPO = Path(__file__).resolve().parents[2]
SECRET = "s3cr3t-token-value"


def num_samples(store) -> int:
    return store.cursor().execute("SELECT count(*) FROM samples").fetchall()[0][0]


def newest_s(store) -> float:
    return store.cursor().execute("SELECT max(epoch_ms(ts)) / 1000 FROM samples").fetchall()[0][0]


def test_outage_is_reported_then_the_gap_is_filled_without_duplicates(live_stack, tmp_path):
    # NOTE: the outage is the network's: Prometheus scrapes on behind the relay, so the samples of the
    # outage are there to fetch once it ends, and the next pull must store them (the gap filled).
    store = open_store(tmp_path / "s.duckdb")
    with TcpRelay(live_stack.port) as relay:
        collector = Collector(store, prometheus_config=PrometheusConfig(url=relay.url), since_s=300)
        collector.pull_once()
        before, newest_before = num_samples(store), newest_s(store)
        relay.cut()
        cut_s = time.time()
        with pytest.raises(ConnectionError):
            collector.pull_once()
        assert "unreachable" in collector.state().last_error
        assert num_samples(store) == before  # stored data untouched
        wait_until(lambda: live_stack.scraped_past(cut_s), "a scrape stored during the outage")
        outage_ended_s = time.time()
        relay.restore()
        assert collector.pull_once() > 0
    assert collector.state().last_error is None
    in_outage = (
        store.cursor()
        .execute(
            "SELECT count(*) FROM samples WHERE epoch_ms(ts) > ? AND epoch_ms(ts) <= ?",
            [newest_before * 1000, outage_ended_s * 1000],
        )
        .fetchall()[0][0]
    )
    assert in_outage > 0, "the samples Prometheus scraped during the outage were not stored"
    dupes = (
        store.cursor()
        .execute("SELECT count(*) FROM (SELECT series_id, ts FROM samples GROUP BY ALL HAVING count(*) > 1)")
        .fetchall()[0][0]
    )
    assert dupes == 0
    store.close()


def test_sigkill_mid_pull_leaves_a_store_that_opens_and_completes(live_stack, tmp_path):
    db = tmp_path / "k.duckdb"
    cmd = [
        sys.executable,
        "-m",
        "dashboard",
        "collect",
        "--prometheus",
        live_stack.url,
        "--db",
        str(db),
        "--since",
        "10m",
        "--interval",
        "1s",
    ]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert (
        "stored" in proc.stderr.readline()
    )  # the first pull is stored; the 1 s loop is now mid-way through more pulls
    time.sleep(0.7)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    store = open_store(db)
    stored_before = num_samples(store)
    store.close()
    assert main(["collect", "--prometheus", live_stack.url, "--db", str(db), "--since", "10m", "--once"]) == 0
    store = open_store(db)
    assert num_samples(store) >= stored_before
    store.close()


def test_direct_scrape_stores_the_same_series_as_the_prometheus_path(exporters, live_stack, tmp_path):
    via_prom = open_store(tmp_path / "p.duckdb")
    Collector(via_prom, prometheus_config=PrometheusConfig(url=live_stack.url), since_s=30).pull_once()
    via_scrape = open_store(tmp_path / "s.duckdb")
    targets = tuple(Target(f"http://127.0.0.1:{e.port}/metrics", e.pod) for e in exporters)
    Collector(via_scrape, targets=targets).pull_once()
    query = "SELECT DISTINCT metric, pod, le FROM series ORDER BY ALL"
    assert via_prom.cursor().execute(query).fetchall() == via_scrape.cursor().execute(query).fetchall()


def test_secrets_never_appear_in_reprs_logs_or_errors(tmp_path, caplog, capsys):
    token_file = tmp_path / "token"
    token_file.write_text(SECRET)
    config = load_config(url="http://127.0.0.1:9", token_file=str(token_file), env={})
    assert config.token == SECRET
    assert SECRET not in repr(config) and SECRET not in str(config)
    store = open_store(tmp_path / "x.duckdb")
    collector = Collector(store, prometheus_config=config)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(ConnectionError) as err:
        collector.pull_once()
    assert SECRET not in str(err.value)
    assert SECRET not in (collector.state().last_error or "")
    store.close()
    code = main(
        [
            "collect",
            "--prometheus",
            "http://127.0.0.1:9",
            "--token-file",
            str(token_file),
            "--db",
            str(tmp_path / "y.duckdb"),
            "--once",
        ]
    )
    out = capsys.readouterr()
    assert code == 1 and len(out.err.strip().splitlines()) == 1
    assert SECRET not in out.out + out.err + caplog.text


def test_tls_is_verified_unless_explicitly_disabled():
    assert load_config(url="https://prom.example", env={}).verify_tls is True
    assert load_config(url="https://prom.example", verify_tls=False, env={}).verify_tls is False
    with pytest.raises(ValueError, match="http:// or https://"):
        load_config(url="prom.example", env={})


def test_chunks_keep_every_query_under_prometheus_point_limit():
    chunks = plan_chunks(0, 48 * 3600, chunk_s=10 * 86400)
    assert chunks[0].start_s == 0 and chunks[-1].end_s == 48 * 3600
    assert all(c.end_s - c.start_s <= MAX_POINTS_PER_SERIES for c in chunks)  # 1 s scrape → ≤ 11,000 points
    assert all(a.end_s == b.start_s for a, b in zip(chunks, chunks[1:], strict=False))


def test_environment_variables_configure_the_puller():
    config = load_config(env={"KVSCOPE_PROMETHEUS_URL": "http://h:9090/", "KVSCOPE_PROMETHEUS_TOKEN": "t"})
    assert config.url == "http://h:9090" and config.token == "t"
