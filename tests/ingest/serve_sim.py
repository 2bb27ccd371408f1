"""`kvscope serve-sim` as a child process on free ports, for tests that scrape it."""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.ingest.live import free_port
from tests.polling import wait_until

REPO = Path(__file__).resolve().parents[2]


@dataclass
class SimCluster:
    """serve-sim's pods vllm-0 … and its EPP, each at /metrics on its own port."""

    num_pods: int = 2
    speed: float = 10.0  # simulated seconds per wall second
    hours: float = 4.0  # the simulated horizon: at speed 10, 24 minutes of growing counters
    proc: subprocess.Popen | None = None

    def __post_init__(self) -> None:
        self.port = free_port(self.num_pods + 1)  # serve-sim takes P … P+N

    def targets(self) -> dict[str, int]:
        """pod label → port, as serve-sim's own --prometheus-config labels them."""
        pods = {f"vllm-{i}": self.port + i for i in range(self.num_pods)}
        return {**pods, "epp-0": self.port + self.num_pods}

    def start(self) -> None:
        args = ["--pods", self.num_pods, "--port", self.port, "--speed", self.speed, "--hours", self.hours]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dashboard", "serve-sim", *map(str, args)],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(self._is_serving, "serve-sim to answer on every port", timeout_s=90, every_s=0.3)

    def _is_serving(self) -> bool:
        assert self.proc is not None and self.proc.poll() is None, "serve-sim exited"
        try:
            for port in self.targets().values():
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as resp:
                    resp.read()
        except OSError:
            return False
        return True

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
            self.proc = None
