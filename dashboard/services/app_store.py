"""How the app opens its store: read-only, unless its own collector is the file's one writer; or a
Parquet export, always read-only."""

from __future__ import annotations

from pathlib import Path

from dashboard.core.config import SOURCE_ENV_VAR
from dashboard.store.db import Store, open_store
from dashboard.store.parquet import open_parquet_source

__all__ = ["Store", "check_app_source", "open_app_store"]  # Store: the type pages and ui/ hold, re-exported
from dashboard.store.health import verify_tables


def open_app_store(path: str | Path, live: bool, parquet: bool = False) -> Store:
    """The app's store. NOTE: DuckDB allows one read-write process per file; with a live source
    the app's collector thread is that writer, otherwise the app only reads so `kvscope collect`
    or `kvscope load-sample` can write the file while the app is stopped.

    With parquet, path is a Parquet export ($KVSCOPE_SOURCE), always read-only: a live collector
    has nowhere to write it.

    Every table is read once here (open_store does it before a write): a damaged block found
    later would fail one chart; found here it is one error line saying what to do.
    """
    check_app_source(path, live, parquet)
    if parquet:
        return open_parquet_source(str(path))  # NOTE: not verified here: that reads every file
    store = open_store(path, read_only=not live)
    if store.read_only:
        try:
            verify_tables(store)
        except ValueError:
            store.close()
            raise
    return store


def check_app_source(path: str | Path, live: bool, parquet: bool) -> None:
    """ValueError (one line) when the app is asked to collect into a Parquet export: it has no writer."""
    if parquet and live:
        raise ValueError(
            f"{SOURCE_ENV_VAR}={path} is a read-only Parquet export and the in-app collector needs a "
            f"store to write: unset {SOURCE_ENV_VAR} to collect into the store, or unset "
            "KVSCOPE_PROMETHEUS_URL / KVSCOPE_SCRAPE to browse the export"
        )
