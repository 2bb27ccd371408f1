"""What the Traces page runs: import a trace into the store, describe a stored one, the SQL console."""

from __future__ import annotations

from pathlib import Path

from dashboard.engine.trace_stats import TraceStats, trace_stats
from dashboard.services import traces
from dashboard.services.traces import TraceInfo
from dashboard.store.console import SqlResult, run_sql
from dashboard.store.db import Store, open_store
from dashboard.store.queries import load_query

AUTO_FORMAT = "auto"


def import_into(
    store: Store | None, db_path: str | Path, source: str | Path, fmt: str, name: str
) -> TraceInfo:
    """Import source as name: through store when it is writable, else on a connection of its own.

    fmt is a reader name or AUTO_FORMAT (sniffed). The store file is created if it does not exist.
    """
    fmt_or_none = None if fmt == AUTO_FORMAT else fmt
    name = name.strip()
    if store is not None and not store.read_only:
        return traces.import_trace(store, source, fmt_or_none, name)
    writable = open_store(db_path)
    try:
        return traces.import_trace(writable, source, fmt_or_none, name)
    finally:
        writable.close()


def imported_as(infos: list[TraceInfo], source: str | Path) -> str | None:
    """The name under which source (by resolved path) was already imported, if any."""
    resolved = str(Path(source).resolve())
    return next((t.name for t in infos if t.source_path == resolved), None)


def stored_stats(store: Store, name: str, num_tree_nodes: int = 60) -> TraceStats:
    """The page's statistics of the trace imported as name."""
    return trace_stats(traces.load_stored_trace(store, name), num_tree_nodes)


def console_default_sql() -> str:
    """The console's starting text (queries/console/default.sql, without its header comment)."""
    lines = load_query("console/default").sql.splitlines()
    return "\n".join(line for line in lines if not line.startswith("--")).strip()


def console(db_path: str | Path, sql: str, max_rows: int) -> SqlResult:
    """One read-only query over the store file (its own locked-down connection)."""
    return run_sql(db_path, sql, max_rows=max_rows)


def default_name(source: str | Path, taken: list[str]) -> str:
    """A trace name from the file's stem, suffixed -2, -3 … until it is not taken."""
    stem = Path(source).stem or "trace"
    name, k = stem, 1
    while name in taken:
        k += 1
        name = f"{stem}-{k}"
    return name
