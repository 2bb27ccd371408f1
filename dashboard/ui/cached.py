"""Streamlit caches around the service layer: one store per process, data with a short TTL."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from dashboard.core.config import default_db_path
from dashboard.services import overview
from dashboard.store.db import Store, open_store

DATA_TTL_S = 10


def store_path() -> Path:
    """The store file this app reads ($KVSCOPE_DB or the default)."""
    return default_db_path()


@st.cache_resource(show_spinner=False)
def _open(path: str) -> Store:
    # NOTE: read-only, so `kvscope collect` or `kvscope load-sample` in another process can
    # still be the file's single writer between the app's reads.
    return open_store(path, read_only=True)


def get_store() -> Store | None:
    """The open store, or None when the file does not exist yet."""
    path = store_path()
    if not path.exists():
        return None
    return _open(str(path))


@st.cache_data(ttl=DATA_TTL_S, max_entries=8, show_spinner=False)
def bounds(path: str) -> overview.Bounds:
    """Cached first/last sample time."""
    return overview.bounds(_open(path))


@st.cache_data(ttl=60, max_entries=8, show_spinner=False)
def pods(path: str) -> list[str]:
    """Cached pod list."""
    return overview.pods(_open(path))


@st.cache_data(ttl=DATA_TTL_S, max_entries=64, show_spinner=False)
def frame(path: str, name: str, tr: overview.TimeRange | None = None, pods_key: tuple[str, ...] = ()) -> pd.DataFrame:
    """A cached overview frame by service-function name (hit_rate, ttft_quantiles, …)."""
    fn = getattr(overview, name)
    store = _open(path)
    if tr is None:
        return fn(store)
    if name in ("hit_rate", "kv_usage", "offload_traffic"):
        return fn(store, tr, list(pods_key))
    return fn(store, tr)


@st.cache_data(ttl=DATA_TTL_S, max_entries=16, show_spinner=False)
def kpis(path: str, tr: overview.TimeRange) -> overview.Kpis:
    """Cached headline numbers."""
    return overview.kpis(_open(path), tr)


@st.cache_data(ttl=60, max_entries=8, show_spinner=False)
def missing(path: str, keys: tuple[str, ...]) -> dict[str, str]:
    """Cached 'not exported by this stack' lookups."""
    return overview.missing_metrics(_open(path), keys)
