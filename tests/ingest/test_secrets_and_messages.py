"""No credential in any message, log or page, even from a server that echoes the Authorization
header; HTTP errors name the status and the (redacted) URL; garbage answers say what they are not;
`collect` prints only its one line (issue 14, items 3, 8 and 8b)."""

from __future__ import annotations

import base64
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.ingest.config import PrometheusConfig, ScrapeConfig, load_config
from dashboard.ingest.http_client import HttpSettings
from dashboard.ingest.scrape import Target
from dashboard.services.collector import Collector
from dashboard.store.db import open_store
from tests.ingest.bad_servers import BadServer, echo_authorization, echo_token_in_page, send
from tests.ingest.live import free_port

REPO = Path(__file__).resolve().parents[2]
SECRET = "TOPSECRET42"
PASSWORD = "hunter2pw"
BASIC = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
NAMES = json.dumps({"status": "success", "data": ["vllm:prefix_cache_queries_total"]})


@pytest.fixture
def token_file(tmp_path) -> Path:
    path = tmp_path / "token"
    path.write_text(SECRET + "\n")
    return path


def run_collect(*args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "dashboard", *args]
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)


def test_a_prometheus_error_echoing_the_token_names_status_and_url_never_the_token(token_file, tmp_path):
    server = BadServer(
        {"/api/v1/label/__name__/values": send(NAMES), "/api/v1/query": echo_authorization(400, as_json=True)}
    )
    try:
        # -v: urllib3's and kvscope's debug logs are on stderr too
        done = run_collect("-v", "collect", "--prometheus", server.url(""), "--token-file", str(token_file),
                           "--db", str(tmp_path / "p.duckdb"), "--once")  # fmt: skip
    finally:
        server.stop()
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1
    assert f"Prometheus at {server.url('/api/v1/query')} answered HTTP 400: you sent Bearer ***" in last, last
    assert SECRET not in done.stdout + done.stderr


def test_a_url_with_user_and_password_is_redacted_everywhere(tmp_path, caplog):
    server = BadServer({"/api/v1/label/__name__/values": echo_authorization(400, as_json=True)})
    url = server.url("", f"alice:{PASSWORD}")
    config = load_config(url=url, env={})
    caplog.set_level(logging.DEBUG)
    try:
        done = run_collect("-v", "collect", "--prometheus", url, "--db", str(tmp_path / "u.duckdb"), "--once")
        collector = Collector(open_store_for(tmp_path), prometheus_config=config)
        with pytest.raises(ConnectionError):
            collector.pull_once()
    finally:
        server.stop()
    shown = done.stdout + done.stderr + repr(config) + caplog.text + collector.state().last_error
    assert (
        f"Prometheus at http://***@127.0.0.1:{server.port}/api/v1/label/__name__/values answered HTTP 400"
        in shown
    )
    for secret in (PASSWORD, BASIC, "alice:"):
        assert secret not in shown, secret


def test_a_page_quoting_the_token_in_a_broken_line_never_shows_it(token_file, tmp_path, caplog):
    server = BadServer({"/metrics": echo_token_in_page()})
    caplog.set_level(logging.DEBUG)
    try:
        done = run_collect("collect", "--scrape", f"a={server.url('/metrics')}", "--token-file", str(token_file),
                           "--db", str(tmp_path / "s.duckdb"), "--once")  # fmt: skip
        config = ScrapeConfig(http=HttpSettings(token=SECRET))
        collector = Collector(
            open_store_for(tmp_path), targets=(Target(server.url("/metrics"), "a"),), scrape_config=config
        )
        with pytest.raises(ConnectionError):
            collector.pull_once()
    finally:
        server.stop()
    assert done.returncode == 1 and "not a Prometheus exposition" in done.stderr
    assert 'token="***"' in collector.state().last_error
    assert SECRET not in done.stdout + done.stderr + caplog.text + collector.state().last_error


def test_an_error_page_is_never_quoted(tmp_path):
    server = BadServer({"/api/v1/label/__name__/values": echo_authorization(403)})
    try:
        config = PrometheusConfig(url=server.url(""), token=SECRET)
        collector = Collector(open_store_for(tmp_path), prometheus_config=config)
        with pytest.raises(ConnectionError) as err:
            collector.pull_once()
    finally:
        server.stop()
    assert "answered HTTP 403 (" in str(err.value) and "not a Prometheus API answer" in str(err.value)
    assert "you sent" not in str(err.value)


@pytest.mark.parametrize("endpoint", ["/api/v1/label/__name__/values", "/api/v1/query"])
def test_a_garbage_answer_says_it_is_not_a_prometheus_api_answer(tmp_path, endpoint):
    routes = {"/api/v1/label/__name__/values": send(NAMES), "/api/v1/query": send(json.dumps({}))}
    routes[endpoint] = send("<html><body>Welcome to nginx!</body></html>", 200, "text/html")
    server = BadServer(routes)
    try:
        code = main(["collect", "--prometheus", server.url(""), "--db", str(tmp_path / "g.duckdb"), "--once"])
        collector = Collector(
            open_store_for(tmp_path), prometheus_config=PrometheusConfig(url=server.url(""))
        )
        with pytest.raises(ValueError, match="not a Prometheus API answer") as err:
            collector.pull_once()
    finally:
        server.stop()
    assert code == 2 and f"127.0.0.1:{server.port}" in str(err.value) and "nginx" not in str(err.value)


def test_collect_prints_only_its_one_line_when_prometheus_is_unreachable(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    done = run_collect("collect", "--prometheus", url, "--db", str(tmp_path / "x.duckdb"), "--once")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, lines  # no urllib3 "Retrying …" warnings first
    assert lines[0].startswith("kvscope collect: error: Prometheus at") and "unreachable" in lines[0]


@pytest.mark.parametrize("flags", [["--interval", "-5s"], ["--interval=-5s"], ["--interval", "0"]])
def test_a_negative_or_zero_interval_is_refused_in_one_line(tmp_path, capsys, flags):
    code = main(
        ["collect", "--scrape", "http://127.0.0.1:9/metrics", "--db", str(tmp_path / "n.duckdb"), *flags]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "usage" not in err[0], err
    assert err[0].startswith("kvscope collect: error: --interval") and "positive" in err[0]
    assert not (tmp_path / "n.duckdb").exists()  # refused before the store was touched


def open_store_for(tmp_path):
    return open_store(tmp_path / "direct.duckdb")
