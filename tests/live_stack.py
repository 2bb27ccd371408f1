"""A live stack shared by the ingest and UI tests: two vLLM-named exporters scraped by real Prometheus.

One stack per test session, however many pytest-xdist workers run it (tests/shared_process.py):
the first process whose collected tests need it starts it as a process of its own
(`python -m tests.live_stack`) under a file lock in the session's run folder, and every process
reads its addresses from there. It starts
as soon as collection shows that a test needs it (tests/conftest.py), so its scrapes accumulate
while the tests before it run; the fixture then waits only until Prometheus holds the history the
tests need. The session's main process stops it at the end, and it stops itself if that process
is gone (a killed run leaves nothing behind).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.ingest.live import Exporter, PrometheusServer
from tests.shared_process import publish_and_wait, start_shared, stop_requested, stop_shared

# The agreement tests compare two windows of 20 s ending 2 s ago: 45 one-second scrapes cover them.
NUM_SCRAPES_NEEDED = 45
READY_TIMEOUT_S = 120
NAME = "live-stack"


@dataclass(frozen=True)
class ExporterAddress:
    """Where one of the stack's exporters listens."""

    pod: str
    port: int


@dataclass(frozen=True)
class LiveStack:
    """Exporters pod-a and pod-b and a Prometheus scraping them every second, by address."""

    prometheus: PrometheusServer
    exporters: tuple[ExporterAddress, ...]

    def wait_until_ready(self) -> PrometheusServer:
        """Poll until every pod has NUM_SCRAPES_NEEDED scrapes stored."""
        deadline = time.monotonic() + READY_TIMEOUT_S
        while self.prometheus.num_scrapes() < NUM_SCRAPES_NEEDED:
            assert time.monotonic() < deadline, (
                f"Prometheus stored < {NUM_SCRAPES_NEEDED} scrapes in {READY_TIMEOUT_S} s"
            )
            time.sleep(0.5)
        return self.prometheus


def start_live_stack() -> LiveStack:
    """The session's one live stack: started by the first caller, found by every later one."""
    return _from_info(start_shared(NAME, "tests.live_stack"))


def stop_live_stack() -> None:
    """Stop the session's stack if one was started (the session's main process calls this)."""
    stop_shared(NAME)


def _from_info(info: dict) -> LiveStack:
    targets = info["targets"]
    prometheus = PrometheusServer(targets, Path(info["data_dir"]), port=info["prometheus_port"])
    return LiveStack(prometheus, tuple(ExporterAddress(pod, port) for pod, port in targets.items()))


def _serve(info: Path, owner_pid: int) -> None:
    """The stack's own process: run until SIGTERM or until the session's main process is gone."""
    stopping = stop_requested()
    exporters = [Exporter("pod-a", seed=1), Exporter("pod-b", seed=2)]
    for e in exporters:
        e.start()
    prometheus = PrometheusServer({e.pod: e.port for e in exporters}, info.parent / "prometheus")
    prometheus.data_dir.mkdir()
    prometheus.start()
    try:
        details = {
            "prometheus_port": prometheus.port,
            "data_dir": str(prometheus.data_dir),
            "targets": prometheus.targets,
        }
        publish_and_wait(info, details, stopping, owner_pid)
    finally:
        prometheus.stop()
        for e in exporters:
            e.stop()


if __name__ == "__main__":
    _serve(Path(sys.argv[1]), int(sys.argv[2]))
