"""Streamlit caches around the service layer: one store per process, data with a short TTL."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pandas as pd
import streamlit as st

from dashboard.core.config import default_db_path, parquet_source
from dashboard.services import explain, headline, overview, windows
from dashboard.services.app_store import Store, check_app_source, open_app_store
from dashboard.services.collector import (
    Collector,
    CollectorState,
    collector_from_environment,
    live_source_configured,
)
from dashboard.services.range_totals import RangeCache
from dashboard.services.window_cache import PER_WINDOW, WindowCache

DATA_TTL_S = 600  # entries are keyed on the newest sample ts, so a long TTL stays fresh
BOUNDS_TTL_S = 5


def store_path() -> str:
    """What this app reads: the Parquet export $KVSCOPE_SOURCE names, else the store file
    ($KVSCOPE_DB or the default)."""
    return parquet_source() or str(default_db_path())


def reads_export() -> bool:
    """True when the app reads a Parquet export ($KVSCOPE_SOURCE), which is always read-only."""
    return parquet_source() is not None


def is_live() -> bool:
    """True when the app runs its own collector ($KVSCOPE_PROMETHEUS_URL or $KVSCOPE_SCRAPE)."""
    return live_source_configured(dict(os.environ))


@st.cache_resource(show_spinner=False)
def _open(path: str) -> Store:
    return open_app_store(path, live=is_live(), parquet=path == parquet_source())


@st.cache_resource(show_spinner=False)
def _collector(path: str) -> Collector:
    collector = collector_from_environment(_open(path), dict(os.environ))
    collector.start()
    return collector


def get_store() -> Store | None:
    """The open store (starting the live collector if configured), or None when there is no file.

    A store that is locked, damaged or not DuckDB stops the run with one error line saying what
    to do (open_store's message), never an exception box.
    """
    path = store_path()
    try:
        check_app_source(path, is_live(), reads_export())  # NOTE: before _open, whose cache keys on path only
        if is_live():
            _collector(path)
        elif parquet_source() is None and not Path(path).exists():
            return None
        return _open(path)
    except ValueError as exc:
        st.error(str(exc))
        st.stop()


def collector_state() -> CollectorState | None:
    """The in-app collector's state, or None when the app only reads."""
    return _collector(store_path()).state() if is_live() else None


@st.cache_data(ttl=BOUNDS_TTL_S, max_entries=8, show_spinner=False)
def _bounds(path: str) -> overview.Bounds:
    return overview.bounds(_open(path))


def bounds(path: str) -> overview.Bounds:
    """Cached first/last sample time; an empty store is asked again next run (live data may arrive)."""
    try:
        result = _bounds(path)
    except ValueError as exc:  # NOTE: a damaged block read here: one line, as get_store says it
        st.error(str(exc))
        st.stop()
    if result.is_empty:
        _bounds.clear()
    return result


@st.cache_data(ttl=60, max_entries=8, show_spinner=False)
def pods(path: str) -> list[str]:
    """Cached pod list."""
    return overview.pods(_open(path))


@st.cache_resource(show_spinner=False)
def _windows(path: str) -> WindowCache:
    return WindowCache()


@st.cache_data(ttl=DATA_TTL_S, max_entries=256, show_spinner=False)
def frame(path: str, name: str, sel: overview.Selection, newest: datetime | None) -> pd.DataFrame:
    """A cached overview frame by service-function name (hit_rate, ttft_quantiles, …).

    Keyed on the newest sample: while no new sample arrives a re-render (another pod, back to a
    range seen before) reads the cache; a new sample makes a new key for the ranges it touches,
    and a per-window frame then asks the store only for the windows after its closed ones.
    """
    if name == "ttft_distribution":
        return headline.ttft_distribution(_range_pieces(path, sel, newest))
    service = explain if name in explain.FRAMES else overview
    compute = getattr(service, name)
    if name in PER_WINDOW and sel.window_s is not None:
        return _windows(path).frame(_open(path), name, sel, newest, compute)
    return compute(_open(path), sel)


@st.cache_data(ttl=DATA_TTL_S, max_entries=64, show_spinner=False)
def residency(path: str, sel: overview.Selection, newest: datetime | None) -> explain.Residency:
    """Cached GPU block residency (keyed like frame)."""
    return explain.block_residency(_open(path), sel)


@st.cache_data(ttl=DATA_TTL_S, max_entries=64, show_spinner=False)
def kpis(path: str, sel: overview.Selection, newest: datetime | None) -> overview.Kpis:
    """Cached headline numbers (keyed like frame)."""
    return headline.kpis(_range_pieces(path, sel, newest))


@st.cache_resource(show_spinner=False)
def _ranges(path: str) -> RangeCache:
    return RangeCache()


@st.cache_data(ttl=DATA_TTL_S, max_entries=16, show_spinner=False)
def _range_pieces(path: str, sel: overview.Selection, newest: datetime | None) -> pd.DataFrame:
    """The whole range's per-series pieces the headline and the TTFT distribution share: a tick
    reads only the samples after the kept part (services/range_totals.py)."""
    return _ranges(path).pieces(_open(path), sel, newest)


@st.cache_data(ttl=DATA_TTL_S, max_entries=32, show_spinner=False)
def missing(path: str, keys: tuple[str, ...], newest: datetime | None = None) -> dict[str, str]:
    """Cached 'not exported by this stack' lookups (keyed like frame: a new sample asks again)."""
    return overview.missing_metrics(_open(path), keys)


@st.cache_data(ttl=DATA_TTL_S, max_entries=64, show_spinner=False)
def with_window(path: str, sel: overview.Selection, newest: datetime | None) -> overview.Selection:
    """sel with its rate window worked out once per render (keyed like frame)."""
    return overview.with_window(_open(path), sel)


@st.cache_data(ttl=DATA_TTL_S, max_entries=64, show_spinner=False)
def window_caption(path: str, sel: overview.Selection, newest: datetime | None) -> str:
    """Which rate window the charts use (newest keys the cache to new samples)."""
    if sel.window_s is not None:
        return windows.window_caption(sel.window_s)
    return overview.window_caption(_open(path), sel.time_range)
