"""No cold-start wall: `kvscope warmup` compiles what the commands and pages call, ahead of use.

The first test starts from an empty numba cache (a fresh install), runs the warmup, then the
commands a new user runs first; numba's cache debug output proves none of them compiled anything.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.services import warmup
from tests.conftest import data_dir

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


def kvscope(args: list[str], cache: Path) -> subprocess.CompletedProcess:
    env = os.environ | {"NUMBA_CACHE_DIR": str(cache), "NUMBA_DEBUG_CACHE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "dashboard", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_after_warmup_from_an_empty_cache_the_first_commands_compile_nothing(tmp_path) -> None:
    cache = tmp_path / "numba-cache"
    done = kvscope(["warmup"], cache)
    assert done.returncode == 0, done.stderr
    assert "[1/" in done.stderr and "kernels ready in" in done.stderr
    assert "[cache] data saved" in done.stdout  # it did compile, into the empty cache
    assert kvscope(["warmup"], cache).stderr == ""  # already warm: nothing to do, nothing said
    for args in FIRST_COMMANDS:
        run = kvscope(args, cache)
        assert run.returncode == 0, run.stderr
        compiled = [line for line in run.stdout.splitlines() if "data saved" in line]
        assert not compiled, f"kvscope {args[0]} compiled after the warmup: {compiled}"


@pytest.fixture
def no_marker():
    """The real marker removed for the test and put back after (the kernels stay compiled)."""
    marker = warmup.marker_path()
    existed = marker.exists()
    marker.unlink(missing_ok=True)
    yield marker
    if existed:
        marker.touch()


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
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=300)
    at.run()
    at.switch_page(page).run()
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
