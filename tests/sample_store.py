"""Stores built once per test session and copied for each test that asks: an empty one, the sample.

NOTE: a dozen modules load the same sample (seconds each) and a hundred-odd tests start from a new
migrated store (~75 ms each); the session's first caller builds the file, under a lock shared by
every xdist worker, and each caller gets a copy of it (milliseconds), free to write, damage or hold
open. A copy of a store is the same store: DuckDB keeps nothing of a file's path inside it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from dashboard.services.sample import load_sample
from dashboard.store.db import open_store
from tests.shared_process import run_dir, session_lock


def copy_of(name: str, build: Callable[[Path], object], dest: Path) -> Path:
    """dest as a copy of the session's store called name, which build(path) makes on first use."""
    built = run_dir() / f"{name}.duckdb"
    with session_lock(name):
        if not built.exists():
            partial = run_dir() / f"{name}-partial.duckdb"
            build(partial)
            assert not Path(f"{partial}.wal").exists(), f"{name}: build left its store open"
            partial.rename(built)
    shutil.copyfile(built, dest)
    return dest


def sample_store(dest: Path) -> Path:
    """A store at dest holding the embedded sample, as `make run` loads it; returns dest."""
    return copy_of("sample", load_sample, dest)


def empty_store(dest: Path) -> Path:
    """A new, migrated store at dest; returns dest."""
    return copy_of("empty", lambda path: open_store(path).close(), dest)
