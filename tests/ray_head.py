"""A real Ray head on 127.0.0.1 for the Ray sweep test and bench: its own port, temp dir and token.

`ray start --head --block` runs in its own session; stopping it ends what it started (the GCS,
raylet and their worker processes), by process id, never `ray stop`, which ends every Ray
process of the user on the machine.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.polling import wait_until
from tests.shared_process import free_port, is_alive

RAY = Path(sys.executable).parent / "ray"
STARTED = "Ray runtime started."


@dataclass(frozen=True)
class RayHead:
    """A running head: its address, the environment a driver needs to join it, its process and folder."""

    address: str
    env: dict[str, str]
    process: subprocess.Popen
    temp_dir: Path

    def descendants(self) -> set[int]:
        """Process ids started under the head (GCS, raylet, workers), from /proc's parent links."""
        children: dict[int, list[int]] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                pid, rest = stat.read_text().split(" (", 1)
                ppid = int(rest.rsplit(") ", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(pid))
        found, todo = set(), [self.process.pid]
        while todo:
            for child in children.get(todo.pop(), []):
                found.add(child)
                todo.append(child)
        return found


def ray_binary() -> Path:
    """The venv's `ray` command (the ray extra); fail in CI, skip locally, saying what to install."""
    if not RAY.exists():
        message = "needs the ray extra: .venv/bin/pip install -e '.[test,ray]' (make test does)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return RAY


@contextmanager
def ray_head(num_cpus: int = 2) -> Iterator[RayHead]:
    """Start a head on 127.0.0.1 with token authentication; stop it and check nothing is left."""
    # NOTE: a short folder under /tmp: Ray's socket paths inside it must fit in 107 bytes.
    temp_dir = Path(tempfile.mkdtemp(prefix="kvray", dir="/tmp"))
    port = free_port()
    # NOTE: an explicit token keeps the test off ~/.ray/auth_token, which would change Ray's mode.
    env = os.environ | {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16)}
    env.pop("RAY_ADDRESS", None)
    log = (temp_dir / "head.log").open("w")
    command = [
        str(ray_binary()),
        "start",
        "--head",
        "--node-ip-address=127.0.0.1",
        f"--port={port}",
        f"--num-cpus={num_cpus}",
        "--include-dashboard=false",
        "--disable-usage-stats",
        f"--temp-dir={temp_dir}",
        "--object-store-memory=200000000",
        "--block",
    ]
    # NOTE: started in its temp dir, so workers find kvscope as installed, not in the checkout's folder.
    process = subprocess.Popen(
        command, cwd=temp_dir, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    head = RayHead(f"127.0.0.1:{port}", env, process, temp_dir)
    try:
        wait_until(
            lambda: STARTED in (temp_dir / "head.log").read_text() or process.poll() is not None,
            "ray start --head",
            timeout_s=90,
        )
        assert process.poll() is None, (temp_dir / "head.log").read_text()[-2000:]
        yield head
    finally:
        _stop(head)
        log.close()
        shutil.rmtree(temp_dir, ignore_errors=True)


def _stop(head: RayHead) -> None:
    """SIGTERM the `ray start --block` process (it drains and ends its children), SIGKILL stragglers."""
    started = head.descendants()
    head.process.send_signal(signal.SIGTERM)
    try:
        head.process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(head.process.pid, signal.SIGKILL)
        head.process.wait()
    deadline = time.monotonic() + 20
    while (alive := {p for p in started if is_alive(p)}) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"Ray processes outlived their head: {sorted(alive)}"
