"""What one test session shares across its pytest-xdist workers: files built once, processes started once.

The session's main process makes a run folder before any worker starts (they inherit its path).
A shared thing is built or started by the first process that asks for it, under a file lock in
that folder, and found there by every later one. A shared process (`python -m MODULE INFO OWNER`)
writes its addresses into its INFO file once it is ready; the session's main process stops every
one at the end, and each stops itself if that process is gone (a killed run leaves nothing behind).
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

RUN_DIR_ENV = "KVSCOPE_TEST_RUN_DIR"  # the session's run folder, shared with its xdist workers
OWNER_PID_ENV = "KVSCOPE_TEST_OWNER_PID"  # the session's main process: shared processes live while it does
START_TIMEOUT_S = 60
REPO = Path(__file__).resolve().parents[1]


def begin_session() -> None:
    """In the session's main process: a run folder its workers inherit (they start after this)."""
    if RUN_DIR_ENV not in os.environ:
        os.environ[RUN_DIR_ENV] = tempfile.mkdtemp(prefix="kvscope-test-run-")
        os.environ[OWNER_PID_ENV] = str(os.getpid())


def is_session_owner() -> bool:
    """True in the process that began the session (not in an xdist worker)."""
    return os.environ.get(OWNER_PID_ENV) == str(os.getpid())


def run_dir() -> Path:
    """The session's run folder."""
    return Path(os.environ[RUN_DIR_ENV])


@contextmanager
def session_lock(name: str) -> Iterator[None]:
    """Hold the session-wide lock called name (one process at a time, across every worker)."""
    with open(run_dir() / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def start_shared(name: str, module: str, timeout_s: float = START_TIMEOUT_S) -> dict:
    """The session's one process called name (`python -m module`): started by the first caller, found by
    every later one; returns what it wrote into its info file."""
    info = run_dir() / f"{name}.json"
    with session_lock(name):
        if not info.exists():
            _spawn(info, module, timeout_s)
    return json.loads(info.read_text())


def stop_shared(name: str) -> None:
    """Stop the session's process called name if one was started (the session's main process calls this)."""
    _stop([Path(os.environ.get(RUN_DIR_ENV, "/nonexistent")) / f"{name}.json"])


def stop_every_shared() -> None:
    """Stop every process the session started, all at once (the session's main process calls this at the end)."""
    _stop(sorted(Path(os.environ.get(RUN_DIR_ENV, "/nonexistent")).glob("*.json")))


def _stop(infos: list[Path]) -> None:
    """SIGTERM the process of each info file there is, then wait up to 30 s for them to end."""
    pids = {}
    for info in infos:
        if info.exists():
            pids[info] = json.loads(info.read_text())["pid"]
            with suppress(ProcessLookupError):  # NOTE: it may have ended itself; it is then not waited on
                os.kill(pids[info], signal.SIGTERM)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(is_alive(pid) for pid in pids.values()):
        time.sleep(0.1)
    for info in pids:
        info.unlink(missing_ok=True)


def _spawn(info: Path, module: str, timeout_s: float) -> None:
    """Start the shared process and wait for it to write its addresses into info."""
    with open(info.with_suffix(".log"), "ab") as log:
        # NOTE: its own session and output, so neither a worker's exit nor a reader of the worker's
        # output waits on it
        proc = subprocess.Popen(
            [sys.executable, "-m", module, str(info), os.environ[OWNER_PID_ENV]],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    deadline = time.monotonic() + timeout_s
    while not info.exists():
        if proc.poll() is not None:
            raise AssertionError(
                f"{module} exited with {proc.returncode} before it was ready (log: {log.name})"
            )
        assert time.monotonic() < deadline, f"{module} did not start in {timeout_s:g} s (log: {log.name})"
        time.sleep(0.1)


def ephemeral_ports() -> range:
    """The kernel's range for the local ports of outgoing connections (and of bind to port 0)."""
    low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
    return range(int(low), int(high) + 1)


def _ports_outside(ephemeral: range, size: int = 12_000) -> range:
    """size ports just below the ephemeral range, else just above it, else where most are free."""
    if ephemeral.start - 1024 >= size // 4:
        return range(max(1024, ephemeral.start - size), ephemeral.start)
    if 65536 - ephemeral.stop >= size // 4:
        return range(ephemeral.stop, min(65536, ephemeral.stop + size))
    return range(20_000, 20_000 + size)  # NOTE: no room outside it: the counter still keeps callers apart


# NOTE: a port the kernel picks for bind(0) comes from the ephemeral range, where every outgoing
# connection (scrapes, Chromium, HTTP clients) also takes its local port: between the probe and a
# child's own bind, one of them took it ("Address already in use" under load). Ports outside that
# range are never handed out so, and the session's processes take them in turn from one counter.
PORTS = _ports_outside(ephemeral_ports())
_private_next = PORTS.start + os.getpid() % len(PORTS)


def free_port(count: int = 1) -> int:
    """The first of `count` consecutive free ports on 127.0.0.1, handed to no other caller this session."""
    global _private_next
    if RUN_DIR_ENV not in os.environ:  # NOTE: outside a test session (a benchmark): this process's own turn
        first = _first_free(_private_next, count)
        _private_next = first + count
        return first
    with session_lock("ports"):
        counter = run_dir() / "ports.next"
        first = _first_free(int(counter.read_text()) if counter.exists() else PORTS.start, count)
        counter.write_text(str(first + count))
        return first


def _first_free(start: int, count: int) -> int:
    """The first run of `count` bindable ports in PORTS from start on, wrapping around once."""
    for _ in range(len(PORTS)):
        first = start if start + count <= PORTS.stop else PORTS.start
        if all(_bindable(port) for port in range(first, first + count)):
            return first
        start = first + count
    raise AssertionError(f"no {count} consecutive free ports on 127.0.0.1 in {PORTS}")


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def is_alive(pid: int) -> bool:
    """True while pid runs (a zombie, whose parent has not reaped it yet, has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def stop_requested() -> threading.Event:
    """In a shared process, before it starts anything: an event set on SIGTERM."""
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    return stopping


def publish_and_wait(info: Path, details: dict, stopping: threading.Event, owner_pid: int) -> None:
    """In a shared process that is ready: write details (and its pid) into info, then return on SIGTERM
    or once the session's main process is gone."""
    partial = info.with_suffix(".partial")
    partial.write_text(json.dumps({"pid": os.getpid(), **details}))
    partial.rename(info)  # NOTE: readers see the whole file or none
    while not stopping.wait(1.0) and is_alive(owner_pid):
        pass
