"""A live stack shared by the ingest and UI tests: two vLLM-named exporters scraped by real Prometheus.

One stack per test session, however many pytest-xdist workers run it: the first process whose
collected tests need it starts it as a process of its own (`python -m tests.live_stack`) under a
file lock in the session's run folder, and every process reads its addresses from there. It starts
as soon as collection shows that a test needs it (tests/conftest.py), so its scrapes accumulate
while the tests before it run; the fixture then waits only until Prometheus holds the history the
tests need. The session's main process stops it at the end, and it stops itself if that process
is gone (a killed run leaves nothing behind).
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tests.ingest.live import Exporter, PrometheusServer

# The agreement tests compare two windows of 20 s ending 2 s ago: 45 one-second scrapes cover them.
NUM_SCRAPES_NEEDED = 45
READY_TIMEOUT_S = 120
START_TIMEOUT_S = 60
RUN_DIR_ENV = "KVSCOPE_TEST_RUN_DIR"  # the session's run folder, shared with its xdist workers
OWNER_PID_ENV = "KVSCOPE_TEST_OWNER_PID"  # the session's main process: the stack lives while it does
INFO_FILE = "live-stack.json"


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


def begin_session() -> None:
    """In the session's main process: a run folder its workers inherit (they start after this)."""
    if RUN_DIR_ENV not in os.environ:
        os.environ[RUN_DIR_ENV] = tempfile.mkdtemp(prefix="kvscope-test-run-")
        os.environ[OWNER_PID_ENV] = str(os.getpid())


def is_session_owner() -> bool:
    """True in the process that began the session (not in an xdist worker)."""
    return os.environ.get(OWNER_PID_ENV) == str(os.getpid())


def start_live_stack() -> LiveStack:
    """The session's one live stack: started by the first caller, found by every later one."""
    run_dir = Path(os.environ[RUN_DIR_ENV])
    info = run_dir / INFO_FILE
    with open(run_dir / "live-stack.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not info.exists():
            _spawn(info)
    return _from_info(json.loads(info.read_text()))


def stop_live_stack() -> None:
    """Stop the session's stack if one was started (the session's main process calls this)."""
    info = Path(os.environ.get(RUN_DIR_ENV, "/nonexistent")) / INFO_FILE
    if not info.exists():
        return
    pid = json.loads(info.read_text())["pid"]
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and is_alive(pid):
        time.sleep(0.1)
    info.unlink(missing_ok=True)


def _spawn(info: Path) -> None:
    """Start the stack's process and wait for it to write its addresses into info."""
    with open(info.parent / "live-stack.log", "ab") as log:
        # NOTE: its own session and output, so neither a worker's exit nor a reader of the worker's
        # output waits on it
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.live_stack", str(info), os.environ[OWNER_PID_ENV]],
            cwd=Path(__file__).resolve().parents[1],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while not info.exists():
        if proc.poll() is not None:
            raise AssertionError(f"the live stack exited with {proc.returncode} before it was ready")
        assert time.monotonic() < deadline, f"the live stack did not start in {START_TIMEOUT_S} s"
        time.sleep(0.1)


def _from_info(info: dict) -> LiveStack:
    targets = info["targets"]
    prometheus = PrometheusServer(targets, Path(info["data_dir"]), port=info["prometheus_port"])
    return LiveStack(prometheus, tuple(ExporterAddress(pod, port) for pod, port in targets.items()))


def is_alive(pid: int) -> bool:
    """True while pid runs (a zombie, whose parent has not reaped it yet, has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _serve(info: Path, owner_pid: int) -> None:
    """The stack's own process: run until SIGTERM or until the session's main process is gone."""
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    exporters = [Exporter("pod-a", seed=1), Exporter("pod-b", seed=2)]
    for e in exporters:
        e.start()
    prometheus = PrometheusServer({e.pod: e.port for e in exporters}, info.parent / "prometheus")
    prometheus.data_dir.mkdir()
    prometheus.start()
    try:
        partial = info.with_suffix(".partial")
        partial.write_text(
            json.dumps(
                {
                    "pid": os.getpid(),
                    "prometheus_port": prometheus.port,
                    "data_dir": str(prometheus.data_dir),
                    "targets": prometheus.targets,
                }
            )
        )
        partial.rename(info)  # NOTE: readers see the whole file or none
        while not stopping.wait(1.0) and is_alive(owner_pid):
            pass
    finally:
        prometheus.stop()
        for e in exporters:
            e.stop()


if __name__ == "__main__":
    _serve(Path(sys.argv[1]), int(sys.argv[2]))
