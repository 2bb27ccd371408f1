"""The live stack is one per test session however many xdist workers ask for it, and it ends with
the session's main process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ingest.live import prometheus_binary
from tests.live_stack import stop_live_stack
from tests.polling import wait_until
from tests.shared_process import OWNER_PID_ENV, RUN_DIR_ENV, is_alive

REPO = Path(__file__).resolve().parents[1]
ASK = (
    "from tests.live_stack import start_live_stack; s = start_live_stack(); "
    "print(s.prometheus.port, sorted(e.port for e in s.exporters))"
)


@pytest.fixture
def session_env(tmp_path, monkeypatch):
    prometheus_binary()  # skips with what to install when Prometheus is missing
    monkeypatch.setenv(RUN_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(OWNER_PID_ENV, str(os.getpid()))
    yield tmp_path
    stop_live_stack()


def test_two_workers_asking_at_once_share_one_stack_and_the_owner_stops_it(session_env):
    workers = [
        subprocess.Popen([sys.executable, "-c", ASK], cwd=REPO, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    answers = [w.communicate(timeout=90)[0].strip() for w in workers]
    assert all(w.returncode == 0 for w in workers)
    assert answers[0] == answers[1] and answers[0]  # one Prometheus, the same two exporters
    pid = json.loads((session_env / "live-stack.json").read_text())["pid"]
    assert is_alive(pid)  # NOTE: the workers have exited; the stack stays for the rest of the session
    stop_live_stack()
    assert not is_alive(pid)
    assert not (session_env / "live-stack.json").exists()


def test_the_stack_stops_itself_when_the_session_owner_is_gone(session_env, monkeypatch):
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    monkeypatch.setenv(OWNER_PID_ENV, str(owner.pid))
    subprocess.run([sys.executable, "-c", ASK], cwd=REPO, check=True, capture_output=True, timeout=90)
    pid = json.loads((session_env / "live-stack.json").read_text())["pid"]
    owner.kill()
    owner.wait()
    wait_until(lambda: not is_alive(pid), "the stack to stop after its owner died", timeout_s=30)
