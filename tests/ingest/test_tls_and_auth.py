"""TLS and auth do what the user said: --ca-bundle and --insecure-skip-verify win over
REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE, and --token-file and basic auth reach --scrape targets or are
refused there, never ignored (issue 14, item 2)."""

from __future__ import annotations

import base64

import certifi
import pytest

from dashboard.cli import main
from dashboard.store.db import open_store
from tests.ingest.bad_servers import GOOD_PAGE, BadServer, make_tls_files, require_authorization, send
from tests.ingest.live import Exporter, PrometheusServer
from tests.polling import wait_until

TOKEN = "scrape-token-0123456789"


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    return make_tls_files(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def other_ca_in_environment(monkeypatch):
    """The environment names a CA bundle that does not hold the test CA (a corporate machine)."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", certifi.where())
    monkeypatch.setenv("CURL_CA_BUNDLE", certifi.where())


@pytest.fixture
def tls_server(tls_files):
    server = BadServer({"/metrics": send(GOOD_PAGE)}, tls=(tls_files["server.pem"], tls_files["server.key"]))
    yield server
    server.stop()


def num_samples(db) -> int:
    store = open_store(db)
    try:
        return store.cursor().execute("SELECT count(*) FROM samples").fetchall()[0][0]
    finally:
        store.close()


def collect_once(tmp_path, *flags: str) -> int:
    return main(["collect", "--db", str(tmp_path / "t.duckdb"), "--once", *flags])


def test_ca_bundle_wins_over_the_environment_for_scrape(
    other_ca_in_environment, tls_server, tls_files, tmp_path
):
    code = collect_once(
        tmp_path, "--scrape", tls_server.url("/metrics"), "--ca-bundle", str(tls_files["ca.pem"])
    )
    assert code == 0 and num_samples(tmp_path / "t.duckdb") == 2


def test_insecure_skip_verify_wins_over_the_environment_for_scrape(
    other_ca_in_environment, tls_server, tmp_path, capsys
):
    code = collect_once(tmp_path, "--scrape", tls_server.url("/metrics"), "--insecure-skip-verify")
    assert code == 0 and num_samples(tmp_path / "t.duckdb") == 2
    assert "TLS verification is off" in capsys.readouterr().err


def test_without_a_flag_the_environment_bundle_applies_and_says_why_it_failed(
    other_ca_in_environment, tls_server, tmp_path, capsys
):
    assert collect_once(tmp_path, "--scrape", f"a={tls_server.url('/metrics')}") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "TLS certificate verify failed" in err[0], err


def test_ca_bundle_wins_over_the_environment_for_a_real_prometheus(
    other_ca_in_environment, tls_files, tmp_path
):
    exporter = Exporter("pod-a", seed=1)
    exporter.start()
    tls = (tls_files["server.pem"], tls_files["server.key"], tls_files["ca.pem"])
    prom = PrometheusServer({"pod-a": exporter.port}, tmp_path, tls=tls)
    prom.start()
    try:
        wait_until(lambda: prom.num_scrapes() >= 2, "two scrapes over TLS")
        code = collect_once(
            tmp_path, "--prometheus", prom.url, "--ca-bundle", str(tls_files["ca.pem"]), "--since", "2m"
        )
    finally:
        prom.stop()
        exporter.stop()
    assert code == 0 and num_samples(tmp_path / "t.duckdb") > 0


def test_token_file_reaches_every_scrape_target(tmp_path):
    server = BadServer({"/metrics": require_authorization(f"Bearer {TOKEN}")})
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    try:
        code = collect_once(
            tmp_path, "--scrape", f"a={server.url('/metrics')}", "--token-file", str(token_file)
        )
    finally:
        server.stop()
    assert code == 0 and num_samples(tmp_path / "t.duckdb") == 2


def test_basic_auth_in_a_scrape_url_is_sent_and_its_password_never_shown(tmp_path, capsys):
    expected = "Basic " + base64.b64encode(b"alice:pw-9876543").decode()
    server = BadServer({"/metrics": require_authorization(expected)})
    try:
        ok = collect_once(tmp_path, "--scrape", f"a={server.url('/metrics', 'alice:pw-9876543')}")
        wrong = collect_once(tmp_path, "--scrape", f"a={server.url('/metrics', 'alice:wrong-pw-123')}")
    finally:
        server.stop()
    err = capsys.readouterr().err
    assert ok == 0 and num_samples(tmp_path / "t.duckdb") == 2
    assert wrong == 1 and "answered HTTP 401" in err and f"http://***@127.0.0.1:{server.port}/metrics" in err
    assert "wrong-pw-123" not in err and "alice:" not in err


def test_a_token_and_a_user_pass_target_together_are_refused(tmp_path, capsys):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    code = collect_once(
        tmp_path, "--scrape", "a=http://bob:pw@127.0.0.1:9/metrics", "--token-file", str(token_file)
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "bearer token and a user:pass@" in err[0] and ":pw@" not in err[0]


def test_match_with_scrape_is_refused_not_ignored(tmp_path, capsys):
    code = collect_once(tmp_path, "--scrape", "a=http://127.0.0.1:9/metrics", "--match", "namespace=llm-d")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--match" in err[0]
