"""kvscope load-sample: loads the embedded sample once, and --if-empty leaves a filled store alone."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from dashboard.services.sample import store_is_empty
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from tests.ingest.live import free_port
from tests.sim.test_serve_sim import wait_for_port

REPO = Path(__file__).resolve().parents[2]


def kvscope(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dashboard", *args], cwd=REPO, capture_output=True, text=True, timeout=300
    )


def test_load_sample_if_empty_loads_once(tmp_path):
    db = tmp_path / "k.duckdb"
    first = kvscope("load-sample", "--db", str(db), "--if-empty")
    assert first.returncode == 0, first.stderr
    second = kvscope("load-sample", "--db", str(db), "--if-empty")
    assert second.returncode == 0 and "already holds" in second.stdout
    store = open_store(db, read_only=True)
    counts = run_query(store, "store_counts").iloc[0]
    store.close()
    assert counts.num_annotations == 3  # loaded once, not twice
    assert counts.num_requests > 0 and counts.num_samples > 0


def test_a_fresh_store_counts_as_empty(tmp_path):
    store = open_store(tmp_path / "e.duckdb")
    assert store_is_empty(store)
    store.close()


def test_serve_sim_exits_cleanly_on_sigint():
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dashboard",
            "serve-sim",
            "--pods",
            "1",
            "--port",
            str(port),
            "--hours",
            "0.5",
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # NOTE: wait for its own "serving" line, not just an open port another process might hold
        line = proc.stderr.readline()
        assert line.startswith("serving"), line
        wait_for_port(port + 1)
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
        assert time.monotonic() - started < 10
    finally:
        if proc.poll() is None:
            proc.kill()
