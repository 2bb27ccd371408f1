"""Stores built once per test session and copied for each test that asks: an empty one, the sample.

NOTE: a dozen modules load the same sample (seconds each) and a hundred-odd tests start from a new
migrated store (~75 ms each); the session's first caller builds the file, under a lock shared by
every xdist worker, and each caller gets a copy of it (milliseconds), free to write, damage or hold
open. A copy of a store is the same store: DuckDB keeps nothing of a file's path inside it.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from dashboard.core.config import SAMPLE_DATA_DIR
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


class SampleRows:
    """The embedded sample's metric rows as Arrow, selectable by masks over `ts` and `pod` as a frame is.

    NOTE: the sample as pandas costs 4 s (a list of label pairs per row); as Arrow it costs 0.2 s and
    write_samples takes it as the interchange loader hands it over.
    """

    def __init__(self, table: pa.Table) -> None:
        self.table = table
        self.ts = pd.Series(table.column("ts").to_numpy())

    @functools.cached_property
    def pod(self) -> pd.Series:
        """Each row's `pod` label (None without one); looked up only where a test selects by it."""
        return pd.Series(
            pc.map_lookup(self.table.column("labels"), "pod", "first").to_numpy(zero_copy_only=False)
        )

    def __getitem__(self, mask: pd.Series) -> SampleRows:
        return SampleRows(self.table.filter(pa.array(np.asarray(mask))))


def sample_rows(minutes: float | None = None) -> SampleRows:
    """The embedded sample's metric rows, or only its first `minutes`."""
    table = pq.read_table(SAMPLE_DATA_DIR / "metrics.parquet")
    if minutes is not None:
        first = pc.min(table["ts"]).as_py()
        table = table.filter(pc.field("ts") <= first + timedelta(minutes=minutes))
    return SampleRows(table)
