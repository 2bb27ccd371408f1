"""Named queries for callers that hold a path rather than an open store (the CLI)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from dashboard.store.db import open_store
from dashboard.store.queries import run_query


def run_named_query(path: Path, name: str, params: dict[str, Any]) -> pd.DataFrame:
    """Open the store at path read-only, run queries/NAME.sql with params, close it."""
    if not Path(path).exists():
        raise ValueError(
            f"store {path} does not exist (load data with `kvscope load-sample` or `kvscope collect`)"
        )
    store = open_store(path, read_only=True)
    try:
        return run_query(store, name, **params)
    finally:
        store.close()
