"""A live stack shared by the ingest and UI tests: two vLLM-named exporters scraped by real Prometheus."""

from __future__ import annotations

import time

import pytest

from tests.ingest.live import Exporter, PrometheusServer


@pytest.fixture(scope="session")
def exporters():
    started = [Exporter("pod-a", seed=1), Exporter("pod-b", seed=2)]
    for e in started:
        e.start()
    yield started
    for e in started:
        e.stop()


@pytest.fixture(scope="session")
def live_stack(exporters, tmp_path_factory):
    prom = PrometheusServer({e.pod: e.port for e in exporters}, tmp_path_factory.mktemp("prom"))
    prom.start()
    time.sleep(45)  # 45 one-second scrapes of both pods
    yield prom
    prom.stop()
