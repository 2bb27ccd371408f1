"""A server on this host is asked for its answers uncompressed (compressing cost a local Prometheus
most of its CPU in a pull); any other host keeps requests' gzip; a compressed answer reads either way."""

from __future__ import annotations

import gzip

import pytest

from dashboard.cli import main
from dashboard.ingest.http_client import is_loopback, request_headers
from tests.ingest.bad_servers import GOOD_PAGE, BadServer, send
from tests.ingest.test_tls_and_auth import num_samples


def recording(asked: list[str], always_gzip: bool = False):
    """The good page, gzipped when the client accepts gzip (or always), noting what it asked for."""

    def behave(h, stop) -> None:
        accepts = h.headers.get("Accept-Encoding", "")
        asked.append(accepts)
        if always_gzip or "gzip" in accepts:
            send(gzip.compress(GOOD_PAGE.encode()), headers={"Content-Encoding": "gzip"})(h, stop)
        else:
            send(GOOD_PAGE)(h, stop)

    return behave


@pytest.mark.parametrize("always_gzip", [False, True], ids=["as asked", "gzip anyway"])
def test_a_target_on_this_host_is_asked_for_identity_and_its_samples_are_stored(tmp_path, always_gzip):
    asked: list[str] = []
    server = BadServer({"/metrics": recording(asked, always_gzip)})
    try:
        code = main(
            ["collect", "--db", str(tmp_path / "t.duckdb"), "--once", "--scrape", server.url("/metrics")]
        )
    finally:
        server.stop()
    assert code == 0 and asked == ["identity"]
    assert num_samples(tmp_path / "t.duckdb") == 2  # GOOD_PAGE's two samples, read either way


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:9090", True),
        ("http://127.0.0.53:9090/api", True),
        ("http://localhost:9090", True),
        ("http://prometheus.localhost", True),
        ("https://user:pw@[::1]:9090", True),
        ("http://10.0.0.7:9090", False),
        ("http://prometheus.monitoring.svc:9090", False),
        ("http://localhost.example.com:9090", False),
        ("https://[2001:db8::1]:9090", False),
    ],
)
def test_only_a_host_on_this_machine_is_asked_not_to_compress(url, local):
    assert is_loopback(url) is local
    assert request_headers(url) == ({"Accept-Encoding": "identity"} if local else {})
