"""kvscope load-sample: loads the embedded sample once, and --if-empty leaves a filled store alone."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq

from dashboard.cli import main
from dashboard.services.sample import store_is_empty, write_sample
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from tests.ingest.live import free_port
from tests.sim.test_serve_sim import wait_for_port

REPO = Path(__file__).resolve().parents[2]
TABLES = ("requests", "annotations")


def test_load_sample_if_empty_loads_once(tmp_path, capsys):
    # NOTE: a 6-minute sample from the same generator (not the 6-hour one, whose loading the
    # session's sample store already does): what is checked is that a filled store is left alone.
    write_sample(tmp_path / "short", hours=0.1)
    db = tmp_path / "k.duckdb"
    load = ["load-sample", "--db", str(db), "--dir", str(tmp_path / "short"), "--if-empty"]
    assert main(load) == 0
    capsys.readouterr()
    assert main(load) == 0 and "already holds" in capsys.readouterr().out
    store = open_store(db, read_only=True)
    counts = run_query(store, "store_counts").iloc[0]
    store.close()
    written = {name: pq.read_table(tmp_path / "short" / f"{name}.parquet").num_rows for name in TABLES}
    assert counts.num_requests == written["requests"] > 0  # loaded once, not twice
    assert counts.num_annotations == written["annotations"]
    assert counts.num_samples > 0


def test_a_fresh_store_counts_as_empty(tmp_path):
    store = open_store(tmp_path / "e.duckdb")
    assert store_is_empty(store)
    store.close()


def test_serve_sim_exits_cleanly_on_sigint():
    port = free_port(2)  # a pod and the EPP: P … P+1
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
