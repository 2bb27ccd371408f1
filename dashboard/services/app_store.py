"""How the app opens its store: read-only, unless its own collector is the file's one writer."""

from __future__ import annotations

from pathlib import Path

from dashboard.store.db import Store, open_store

__all__ = ["Store", "open_app_store"]  # Store: the type pages and ui/ hold, re-exported
from dashboard.store.health import verify_tables


def open_app_store(path: str | Path, live: bool) -> Store:
    """The app's store. NOTE: DuckDB allows one read-write process per file; with a live source
    the app's collector thread is that writer, otherwise the app only reads so `kvscope collect`
    or `kvscope load-sample` can write the file while the app is stopped.

    Every table is read once here (open_store does it before a write): a damaged block found
    later would fail one chart; found here it is one error line saying what to do.
    """
    store = open_store(path, read_only=not live)
    if store.read_only:
        try:
            verify_tables(store)
        except ValueError:
            store.close()
            raise
    return store
