"""The read-only SQL console: one SELECT over the store on its own locked-down connection.

The connection is a private in-memory DuckDB that ATTACHes the store file READ_ONLY, then
turns off file and network access and extension loading and locks its configuration, so no
statement (not even SET or PRAGMA) can undo that. Only SELECT-type statements run (SELECT,
WITH, VALUES, DESCRIBE, SHOW, SUMMARIZE), one per call, under a time limit and a row cap.

Over a Parquet export (store/parquet.py) the views over its files are made before the lockdown,
and the only files left readable are the export's own (DuckDB's allowed_directories).

NOTE: DuckDB lets one process attach a file held read-write by that same process only through
the holder's connection, whose settings are global; so while this process also writes the
store (the app's live collector) the console refuses rather than share a writable instance.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import duckdb
import pandas as pd

from dashboard.core.types import SqlResult
from dashboard.store.db import connect
from dashboard.store.parquet import connect_source, is_parquet_source, readable_prefix

DEFAULT_MAX_ROWS = 10_000
DEFAULT_TIMEOUT_S = 10.0
STORE_ALIAS = "store"
ALLOWED_TYPES = frozenset({"SELECT", "EXPLAIN"})
# Applied before the store is attached (extensions) and after it (external access), then locked.
_CONNECT_CONFIG = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    # NOTE: DuckDB adds its spill directory (default ./.tmp) to allowed_directories, which
    # would let a query read and write files there even with external access off.
    "temp_directory": "",
}
_LOCKDOWN = ("SET enable_external_access = false", "SET lock_configuration = true")
# NOTE: DuckDB takes allowed_directories only once the database runs, so not in _CONNECT_CONFIG.
_ALLOW_DIRECTORIES = "SET allowed_directories = $dirs"
_LOCATION = re.compile(r"^(LINE \d+:|\s*\^)")


def run_sql(
    db_path: str | Path,
    sql: str,
    *,
    max_rows: int = DEFAULT_MAX_ROWS,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    parquet: bool | None = None,
) -> SqlResult:
    """Run one read-only SELECT over the store at db_path, or the Parquet export there (parquet:
    True, False, or None to tell by the path); ValueError (one line) on anything else."""
    started = time.perf_counter()
    if parquet is None:
        parquet = is_parquet_source(str(db_path))
    conn = _open_locked_source(str(db_path)) if parquet else _open_locked(Path(db_path))
    try:
        _check_one_select(conn, sql)
        frame, is_truncated = _fetch_limited(conn, sql, max_rows, timeout_s)
    finally:
        conn.close()
    return SqlResult(frame, is_truncated, max_rows, time.perf_counter() - started)


def one_line(exc: BaseException) -> str:
    """DuckDB's message without its LINE/caret context and hints: the first line only."""
    lines = [ln for ln in str(exc).splitlines() if ln.strip() and not _LOCATION.match(ln)]
    return lines[0].strip() if lines else type(exc).__name__


def _open_locked(path: Path) -> duckdb.DuckDBPyConnection:
    """A private connection with the store attached read-only and every way out closed."""
    if not path.is_file():
        raise ValueError(f"store {path} does not exist (import a trace or run `kvscope load-sample` first)")
    conn = connect(":memory:", config=_CONNECT_CONFIG)
    try:
        # NOTE: the path is a quoted literal (ATTACH takes no bound parameters); quotes doubled.
        literal = str(path.resolve()).replace("'", "''")
        conn.execute(f"ATTACH '{literal}' AS {STORE_ALIAS} (READ_ONLY)")
        conn.execute(f"USE {STORE_ALIAS}")
        for statement in _LOCKDOWN:
            conn.execute(statement)
    except duckdb.Error as exc:
        conn.close()
        if "conflict" in str(exc).lower() or "lock" in str(exc).lower():
            raise ValueError(
                f"store {path} is open for writing (a live collector or another kvscope); "
                "the read-only console cannot attach it now"
            ) from exc
        raise ValueError(f"cannot open store {path}: {one_line(exc)}") from exc
    return conn


def _open_locked_source(source: str) -> duckdb.DuckDBPyConnection:
    """A private connection over a Parquet export: its views first, then every way out closed
    but reading the export's own files (which its views need)."""
    conn = connect_source(source, _CONNECT_CONFIG)
    try:
        conn.execute(_ALLOW_DIRECTORIES, {"dirs": [readable_prefix(source)]})
        for statement in _LOCKDOWN:
            conn.execute(statement)
    except duckdb.Error as exc:
        conn.close()
        raise ValueError(f"cannot open the Parquet export {source}: {one_line(exc)}") from exc
    return conn


def _check_one_select(conn: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Parse sql: exactly one statement, of a type that only reads."""
    try:
        statements = conn.extract_statements(sql)
    except duckdb.Error as exc:
        raise ValueError(one_line(exc)) from exc
    if not statements:
        raise ValueError("no SQL statement given")
    if len(statements) != 1:
        raise ValueError(f"the console runs exactly one statement; got {len(statements)}")
    kind = statements[0].type.name
    if kind not in ALLOWED_TYPES:
        raise ValueError(f"the console is read-only: {kind} statements are not allowed (SELECT only)")


def _fetch_limited(
    conn: duckdb.DuckDBPyConnection, sql: str, max_rows: int, timeout_s: float
) -> tuple[pd.DataFrame, bool]:
    """Execute under a timer that interrupts it; keep at most max_rows rows."""
    timer = threading.Timer(timeout_s, conn.interrupt)
    timer.start()
    try:
        conn.execute(sql)
        columns = [d[0] for d in conn.description or []]
        rows = conn.fetchmany(max_rows + 1)
    except duckdb.InterruptException as exc:
        raise ValueError(f"query interrupted: it ran past the console's {timeout_s:g} s time limit") from exc
    except duckdb.Error as exc:
        raise ValueError(one_line(exc)) from exc
    finally:
        timer.cancel()
    is_truncated = len(rows) > max_rows
    return pd.DataFrame(rows[:max_rows], columns=_unique(columns)), is_truncated


def _unique(columns: list[str]) -> list[str]:
    """Column names made unique (SELECT 1 AS a, 2 AS a) so the frame and its CSV keep both."""
    seen: dict[str, int] = {}
    out = []
    for name in columns:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}_{seen[name]}")
    return out
