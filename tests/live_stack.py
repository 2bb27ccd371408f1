"""A live stack shared by the ingest and UI tests: two vLLM-named exporters scraped by real Prometheus.

One stack per test session. It starts as soon as collection shows that a test needs it (see
tests/conftest.py), so its scrapes accumulate while the tests before it run; the fixture then
waits only until Prometheus holds the history the tests need.
"""

from __future__ import annotations

import atexit
import tempfile
import time
from pathlib import Path

from tests.ingest.live import Exporter, PrometheusServer

# The agreement tests compare two windows of 20 s ending 2 s ago: 45 one-second scrapes cover them.
NUM_SCRAPES_NEEDED = 45
READY_TIMEOUT_S = 120


class LiveStack:
    """Exporters pod-a and pod-b and a Prometheus scraping them every second."""

    def __init__(self) -> None:
        self.exporters = [Exporter("pod-a", seed=1), Exporter("pod-b", seed=2)]
        for e in self.exporters:
            e.start()
        data_dir = Path(tempfile.mkdtemp(prefix="kvscope-live-stack-"))
        self.prometheus = PrometheusServer({e.pod: e.port for e in self.exporters}, data_dir)
        self.prometheus.start()
        atexit.register(self.stop)

    def num_scrapes(self) -> int:
        """Fewest samples Prometheus holds of any pod's query counter over the last 2 minutes."""
        return self.prometheus.num_scrapes()

    def wait_until_ready(self) -> PrometheusServer:
        """Poll until every pod has NUM_SCRAPES_NEEDED scrapes stored."""
        deadline = time.monotonic() + READY_TIMEOUT_S
        while self.num_scrapes() < NUM_SCRAPES_NEEDED:
            assert time.monotonic() < deadline, (
                f"Prometheus stored < {NUM_SCRAPES_NEEDED} scrapes in {READY_TIMEOUT_S} s"
            )
            time.sleep(0.5)
        return self.prometheus

    def stop(self) -> None:
        """Stop Prometheus and the exporters (idempotent)."""
        self.prometheus.stop()
        for e in self.exporters:
            if not e._stop.is_set():
                e.stop()


_STACK: LiveStack | None = None


def start_live_stack() -> LiveStack:
    """The session's one live stack, started on first call."""
    global _STACK
    if _STACK is None:
        _STACK = LiveStack()
    return _STACK


def stop_live_stack() -> None:
    """Stop the session's stack if one was started."""
    if _STACK is not None:
        _STACK.stop()
