"""Paths and environment settings shared by every layer."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent
# NOTE: in a source checkout dashboard/queries and dashboard/sample_data are symlinks to the
# top-level folders; in a wheel they are real folders inside the package.
QUERIES_DIR = PACKAGE_DIR / "queries"
SAMPLE_DATA_DIR = PACKAGE_DIR / "sample_data"
SAMPLE_TRACE = SAMPLE_DATA_DIR / "requests.parquet"  # the embedded sample's requests, as a trace
SAMPLE_TRACE_LABEL = "the embedded sample (sample_data/requests.parquet)"  # not the local path

DB_ENV_VAR = "KVSCOPE_DB"
DEFAULT_DB_PATH = Path("data") / "kvscope.duckdb"
SOURCE_ENV_VAR = "KVSCOPE_SOURCE"  # a Parquet export the app reads instead of the store
THREADS_ENV_VAR = "KVSCOPE_DUCKDB_THREADS"  # at most this many DuckDB worker threads per process


def default_db_path() -> Path:
    """The store path: $KVSCOPE_DB if set, else ./data/kvscope.duckdb."""
    return Path(os.environ.get(DB_ENV_VAR) or DEFAULT_DB_PATH)


def parquet_source() -> str | None:
    """$KVSCOPE_SOURCE: a Parquet export (folder, glob or URL) the app reads read-only, or None."""
    return os.environ.get(SOURCE_ENV_VAR) or None


def duckdb_threads() -> int | None:
    """$KVSCOPE_DUCKDB_THREADS as a positive whole number, or None (DuckDB's default: one per core)."""
    text = os.environ.get(THREADS_ENV_VAR, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{THREADS_ENV_VAR}={text!r}: expected a positive whole number of threads")
    return int(text)


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS has one, e.g. not macOS)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
