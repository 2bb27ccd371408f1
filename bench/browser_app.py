"""The Streamlit server the browser bench drives: `streamlit run dashboard/app.py` on a store,
started through this module so the server logs every query's time and every script run's wall and
CPU time to a file the bench reads (nothing in dashboard/ knows about it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.run import ROOT

APP = ROOT / "dashboard" / "app.py"
START_TIMEOUT_S = 60.0
_QUERY_LINE = re.compile(r"query (\S+): \d+ rows in ([\d.]+) s")
_SCRIPT_LINE = re.compile(r"script run in ([\d.]+) s, cpu ([\d.]+) s")


@dataclass(frozen=True)
class App:
    """A running Streamlit server and the file its query log goes to."""

    url: str
    query_log: Path

    def mark(self) -> int:
        """The query log's current end, to read what a render adds after it."""
        return self.query_log.stat().st_size if self.query_log.exists() else 0

    def since(self, mark: int) -> tuple[float, float, float]:
        """Seconds of SQL (cache misses only), of script runs and of their CPU since mark."""
        with self.query_log.open("rb") as f:
            f.seek(mark)
            text = f.read().decode()
        runs = [(float(m.group(1)), float(m.group(2))) for m in _SCRIPT_LINE.finditer(text)]
        sql_s = sum(float(m.group(2)) for m in _QUERY_LINE.finditer(text))
        return sql_s, sum(r[0] for r in runs), sum(r[1] for r in runs)


@contextlib.contextmanager
def running_app(db: Path, tmp: Path, index: int) -> Iterator[App]:
    """`streamlit run dashboard/app.py` on db (through _serve, to log query times); stopped on exit."""
    port = _free_port()
    query_log = tmp / f"queries-{index}.log"
    env = {k: v for k, v in os.environ.items() if k not in ("KVSCOPE_PROMETHEUS_URL", "KVSCOPE_SCRAPE")}
    cmd = [sys.executable, "-m", "bench.browser_app", str(query_log), "run", str(APP)]
    cmd += ["--server.address", "127.0.0.1", "--server.port", str(port), "--server.headless", "true"]
    cmd += ["--server.fileWatcherType", "none", "--server.runOnSave", "false"]
    cmd += ["--browser.gatherUsageStats", "false"]
    with (tmp / f"streamlit-{index}.log").open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env | {"KVSCOPE_DB": str(db)}, stdout=out, stderr=out)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, proc)
        yield App(url, query_log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def _wait_healthy(url: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode} before answering at {url}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"streamlit did not answer at {url} within {START_TIMEOUT_S:.0f} s")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(argv: list[str]) -> int:
    """Run Streamlit, appending to argv[0] every query's time (run_query logs it at DEBUG) and
    every script run's wall and CPU time (so the bench can split the server's time)."""
    log_path, *streamlit_args = argv
    handler = logging.FileHandler(log_path)
    handler.setFormatter(logging.Formatter("%(created).6f %(message)s"))
    for name in ("dashboard.store.queries", "bench.script"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)
        logger.propagate = False
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.web import cli

    exec_script = script_runner.exec_func_with_error_handling

    def timed_exec(func, ctx):  # NOTE: runs on the script thread, so thread_time is the script's CPU
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return exec_script(func, ctx)
        finally:
            logging.getLogger("bench.script").debug(
                "script run in %.6f s, cpu %.6f s", time.perf_counter() - wall, time.thread_time() - cpu
            )

    script_runner.exec_func_with_error_handling = timed_exec
    sys.argv = ["streamlit", *streamlit_args]
    return cli.main(prog_name="streamlit")


if __name__ == "__main__":
    raise SystemExit(_serve(sys.argv[1:]))
