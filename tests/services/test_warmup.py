"""No cold-start wall: `kvscope warmup` compiles what the commands and pages call, ahead of use.

The first test runs the warmup's every step, then the commands a new user runs first, all with
numba's cache debug output on: each command loads only kernels the warmup compiled or loaded, and
compiles none. (From an empty cache the warmup would compile exactly what it loads here: numba
caches a kernel per function and argument types, whichever process compiled it.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.engine.readers import scan
from dashboard.services import warmup
from tests.conftest import data_dir
from tests.ui.apptest import app_at

ROOT = Path(__file__).resolve().parents[2]
MOONCAKE = str(data_dir() / "traces" / "mooncake-fast25" / "conversation_trace.jsonl")
FIRST_COMMANDS = (
    ["replay", MOONCAKE, "--format", "mooncake", "--hbm-blocks", "18279", "--json"],
    ["replay", MOONCAKE, "--format", "mooncake", "--pods", "4", "--router", "prefix", "--hbm-blocks", "4000",
     "--cpu-blocks", "8000", "--json"],
    ["replay", MOONCAKE, "--format", "mooncake", "--hardware", "h100-sxm", "--model", "llama-3.1-8b",
     "--pods", "2", "--router", "session_affinity", "--policy", "learned", "--json"],
    ["mrc", MOONCAKE, "--format", "mooncake", "--json"],
    ["plan", "--trace", MOONCAKE, "--json"],
)  # fmt: skip


def kvscope(args: list[str]) -> subprocess.CompletedProcess:
    """The real command in a new process, with numba saying which cached kernels it loads and saves."""
    return subprocess.run(
        [sys.executable, "-m", "dashboard", *args],
        cwd=ROOT,
        env=os.environ | {"NUMBA_DEBUG_CACHE": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )


def cached_kernels(out: str, action: str) -> set[str]:
    """The cache files numba says it `action`s ("loaded" or "saved") in out, e.g. `routers.score_pods-115.py311.1.nbc`."""
    return {Path(line.split()[-1].strip("'")).name for line in out.splitlines() if f"data {action}" in line}


def hashed_ids_trace(path: Path) -> Path:
    """A Mooncake trace whose ids are 64-bit hashes, as other exporters write them: past the
    readers' direct table, so they go into its hash, which grows; and large enough to be read in
    parts on threads (scan.PARALLEL_MIN_BYTES)."""
    lines = (
        f'{{"timestamp": {i}, "input_length": 512, "output_length": 8, '
        f'"hash_ids": [{(1 << 40) + 7919 * 32 * i + 7919 * j}]}}'
        for i in range(1600)
        for j in range(32)
    )
    path.write_text("\n".join(lines) + "\n")
    assert path.stat().st_size >= scan.PARALLEL_MIN_BYTES
    return path


def test_the_first_commands_load_only_kernels_the_warmup_compiles_and_compile_none(tmp_path) -> None:
    # NOTE: the session's cache, warm since `make test` ran the warmup, is used as it is: compiling
    # every kernel again into an empty cache took ~30 s of the suite's two cores, and would compile
    # the very files listed here.
    done = kvscope(["warmup", "--force"])
    assert done.returncode == 0, done.stderr
    assert "[1/" in done.stderr and "kernels ready in" in done.stderr
    warmed = cached_kernels(done.stdout, "loaded") | cached_kernels(done.stdout, "saved")
    assert any(name.startswith("cluster_kernel.run_cluster-") for name in warmed), done.stdout
    assert kvscope(["warmup"]).stderr == ""  # already warm: nothing to do, nothing said
    hashed = [
        "replay",
        str(hashed_ids_trace(tmp_path / "hashed.jsonl")),
        "--format",
        "mooncake",
        "--hbm-blocks",
        "64",
        "--json",
    ]
    chats = tmp_path / "bailian.jsonl"
    chats.write_text(
        '{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 40, "output_length": 8, '
        '"type": "text", "turn": 1, "hash_ids": [3, 4, 5]}\n'
    )
    bailian = ["replay", str(chats), "--format", "bailian", "--hbm-blocks", "64", "--json"]
    for args in (*FIRST_COMMANDS, hashed, bailian):
        run = kvscope(args)
        assert run.returncode == 0, run.stderr
        assert not cached_kernels(run.stdout, "saved"), f"kvscope {args[0]} compiled after the warmup"
        assert cached_kernels(run.stdout, "loaded") <= warmed, (
            f"kvscope {args[0]} loaded what the warmup did not"
        )
        assert cached_kernels(run.stdout, "loaded"), f"kvscope {args[0]}: no cached kernel loaded"


@pytest.fixture
def no_marker(tmp_path, monkeypatch):
    """No marker where this process looks for one (the kernels stay compiled); the real one is left alone.

    NOTE: removing the real marker raced with the other xdist workers: a command they ran meanwhile
    warmed up again (saying so on stderr), and its new marker could hide the missing one from the page.
    """
    marker = tmp_path / warmup.marker_path().name
    monkeypatch.setattr(warmup, "marker_path", lambda: marker)
    return marker


def test_the_marker_follows_the_kernel_sources(no_marker) -> None:
    assert not warmup.is_warm()
    warmup.warm_up()
    assert warmup.is_warm()
    assert warmup.sources_digest() in no_marker.name


@pytest.mark.parametrize("page", ["app_pages/whatif.py", "app_pages/planner.py"])
def test_a_page_that_finds_no_marker_compiles_under_a_status_box(
    no_marker, page, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("KVSCOPE_DB", str(tmp_path / "kvscope.duckdb"))
    at = app_at(page, 300)
    assert not at.exception, [e.value for e in at.exception]
    assert "Replay engine compiled" in at.status[0].label
    assert warmup.is_warm()


def test_a_cold_warmup_deletes_this_package_s_kernels_cached_before_its_sources_changed(
    tmp_path, monkeypatch
) -> None:
    # numba checks a cached kernel against its own file only, so a kernel whose callee changed in
    # another file would load stale code: kernels cached before the newest source change must go.
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    stale = tmp_path / "policies_0123abcd" / "dispatch.touch-1.py311.nbi"
    fresh = tmp_path / "policies_0123abcd" / "dispatch.insert-2.py311.nbi"
    theirs = tmp_path / "otherlib_0123abcd" / "f-1.py311.nbi"
    for path in (stale, fresh, theirs):
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"x")
    os.utime(stale, (0, 0))
    os.utime(theirs, (0, 0))
    assert warmup.purge_stale_kernels() == 1
    assert not stale.exists() and fresh.exists() and theirs.exists()


def test_a_file_of_intrinsics_counts_as_a_kernel_source() -> None:
    # fifo_lanes.py holds no @njit of its own, but its intrinsics are compiled into mrc_fifo's
    # kernels: changing it must stale their cache (LANES changed there alone once loaded 32-lane code)
    assert warmup.PACKAGE / "engine" / "fifo_lanes.py" in warmup.kernel_sources()
