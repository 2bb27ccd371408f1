"""With a live source configured, the app runs its own collector and shows its state."""

from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

from tests.polling import wait_until
from tests.ui.apptest import APP


def test_app_collects_from_prometheus_and_shows_the_collector_state(monkeypatch, live_stack, tmp_path):
    monkeypatch.setenv("KVSCOPE_DB", str(tmp_path / "live.duckdb"))
    monkeypatch.setenv("KVSCOPE_PROMETHEUS_URL", live_stack.url)
    monkeypatch.setenv("KVSCOPE_COLLECT_SINCE", "2m")
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()

    def first_pull_shown() -> bool:  # the collector thread's first pull, seen by a rerun
        at.run()
        captions = " ".join(c.value for c in at.sidebar.caption)
        return "Collector: last pull" in captions and len(at.get("plotly_chart")) > 0

    wait_until(first_pull_shown, "the page to show the collector's first pull", every_s=0.5)
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.get("plotly_chart")) >= 3  # hit rate and TTFT: what the test exporters export
    assert any("not exported by this stack" in w.value for w in at.warning)  # e.g. no offload tier


def test_app_shows_the_collector_error_and_keeps_stored_data(monkeypatch, tmp_path):
    monkeypatch.setenv("KVSCOPE_DB", str(tmp_path / "dead.duckdb"))
    monkeypatch.setenv("KVSCOPE_PROMETHEUS_URL", "http://127.0.0.1:9")
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    deadline = time.monotonic() + 30  # the first pull fails after three retries with backoff
    while not at.sidebar.error and time.monotonic() < deadline:
        time.sleep(0.5)
        at.run()
    assert not at.exception
    assert any("unreachable" in e.value for e in at.sidebar.error)
    assert any("load-sample" in i.value for i in at.info)  # the page still explains itself
