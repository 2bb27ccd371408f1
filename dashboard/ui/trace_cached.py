"""Streamlit caches for the Traces page: the trace list, a stored trace's statistics, console results."""

from __future__ import annotations

from datetime import datetime

import streamlit as st

from dashboard.core.trace_stats import TraceStats
from dashboard.core.types import SqlResult
from dashboard.services import trace_explorer, traces
from dashboard.services.traces import TraceInfo
from dashboard.ui import cached

LIST_TTL_S = 30


@st.cache_data(ttl=LIST_TTL_S, max_entries=8, show_spinner=False)
def trace_list(path: str) -> list[TraceInfo]:
    """The traces imported into the store at path (none when it does not exist yet)."""
    store = cached.get_store()
    return traces.list_traces(store) if store is not None else []


@st.cache_data(max_entries=8, show_spinner="Computing the trace's statistics …")
def stats(path: str, name: str, trace_id: int, imported_at: datetime, num_tree_nodes: int) -> TraceStats:
    """A stored trace's statistics; trace_id and imported_at key the cache to that one import."""
    return trace_explorer.stored_stats(cached.get_store(), name, num_tree_nodes)


@st.cache_data(ttl=LIST_TTL_S, max_entries=16, show_spinner="Running the query …")
def console(path: str, sql: str, max_rows: int) -> SqlResult:
    """A console result (errors are not cached: they raise)."""
    return trace_explorer.console(path, sql, max_rows)


def import_trace(path: str, source: str, fmt: str, name: str) -> TraceInfo:
    """Import source into the store at path, then forget the cached list and results."""
    if cached.reads_export():  # NOTE: an export is history only, and read-only
        raise ValueError(
            "the app reads a Parquet export ($KVSCOPE_SOURCE), which takes no imports; "
            "use `kvscope import-trace … --db STORE` and open that store instead"
        )
    store = cached.get_store()
    if store is not None and store.read_only:
        # NOTE: DuckDB refuses a read-write connection to a file this process holds read-only,
        # so the app's shared reader is closed for the import and reopened on next use.
        store.close()
        cached._open.clear()  # noqa: SLF001 (the reader cache lives in ui/cached.py)
        store = None
    try:
        return trace_explorer.import_into(store, path, source, fmt, name)
    finally:
        trace_list.clear()
        console.clear()
