"""Named queries for callers that hold a path rather than an open store (the CLI)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from dashboard.services import windows
from dashboard.store.db import Store, open_store
from dashboard.store.parquet import open_parquet_source
from dashboard.store.queries import run_query


def open_reader(path: Path, source: str | None = None) -> Store:
    """The store at path open read-only, or the Parquet export at source when one is given."""
    if source is not None:
        return open_parquet_source(source)
    if not Path(path).exists():
        raise ValueError(
            f"store {path} does not exist (load data with `kvscope load-sample` or `kvscope collect`)"
        )
    return open_store(path, read_only=True)


def named_query_with_note(
    path: Path, name: str, params: dict[str, Any], source: str | None = None
) -> tuple[pd.DataFrame, str | None]:
    """Open the store at path (or the Parquet export at source) read-only, run queries/NAME.sql
    with params, close it; with the rows, one line when params' step is below two observed scrape
    intervals of the data (else None)."""
    store = open_reader(path, source)
    try:
        return run_query(store, name, **params), _short_step_note(store, params)
    finally:
        store.close()


def _short_step_note(store: Store, params: dict[str, Any]) -> str | None:
    if "step" not in params:
        return None
    try:
        step_s = float(params["step"])
    except ValueError:
        return None  # run_query already rejected it
    return windows.short_step_note(store, step_s)
