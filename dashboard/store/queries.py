"""The one chokepoint for SQL: run_query(store, name, **params) over queries/NAME.sql.

Each file's header declares its parameters (`--   $name TYPE  description`); a description
containing `optional` makes the parameter default to NULL, and `catalog:KEY` fills it with the
metric catalog's name variants for KEY (callers never pass those). Parameters are always bound.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from dashboard.core import catalog
from dashboard.core.config import QUERIES_DIR
from dashboard.store.db import Store, describe_store_error, store_error_kind

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_ROWS = 1_000_000
CHUNK_VECTORS = 50  # DuckDB vectors of 2,048 rows: read ~100k rows at a time
_PARAM_LINE = re.compile(r"^--\s+\$(\w+)\s+([A-Z]+(?:\[\])?)\s*(.*)$")
_NAME = re.compile(r"^[a-z][a-z0-9_]*(/[a-z][a-z0-9_]*)?$")
# NOTE: any table function or statement that can take a path: read_*, *_scan, glob, the parquet
# metadata functions, sniff_csv, query/query_table (a string that names a table function), and
# the statements that open files. A literal path in a read query is reviewed code; a bound one
# would let `kvscope query --param` read any file the process can.
_FILE_ACCESS = re.compile(
    r"\b(read_\w+|\w+_scan|glob|parquet_\w+|sniff_csv|query|query_table|iceberg_\w+|delta_\w+)"
    r"\s*\(\s*(CAST\s*\(\s*)?\$"
    r"|^\s*(ATTACH|COPY|INSTALL|LOAD|EXPORT|IMPORT)\b",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True)
class Param:
    """One declared parameter of a query file."""

    name: str
    sql_type: str
    is_optional: bool
    catalog_key: str | None


@dataclass(frozen=True)
class QueryFile:
    """A parsed queries/NAME.sql: its text and declared parameters."""

    name: str
    path: Path
    sql: str
    params: tuple[Param, ...]


@cache
def load_query(name: str) -> QueryFile:
    """Parse queries/NAME.sql (NAME may be `dir/name`); ValueError if unknown."""
    if not _NAME.match(name):
        raise ValueError(f"invalid query name {name!r}")
    path = QUERIES_DIR / f"{name}.sql"
    if not path.is_file():
        raise ValueError(f"unknown query {name!r}; available: {', '.join(list_queries())}")
    sql = path.read_text()
    params = []
    for line in sql.splitlines():
        m = _PARAM_LINE.match(line)
        if m:
            pname, ptype, desc = m.groups()
            key = re.search(r"catalog:(\w+)", desc)
            params.append(Param(pname, ptype, "optional" in desc, key.group(1) if key else None))
    used = set(re.findall(r"\$(\w+)", _strip_comments(sql)))
    declared = {p.name for p in params}
    assert used == declared, f"{path}: parameters used {sorted(used)} != declared {sorted(declared)}"
    return QueryFile(name, path, sql, tuple(params))


def list_queries() -> list[str]:
    """Names of the runnable (non-schema, non-write) query files."""
    return sorted(p.stem for p in QUERIES_DIR.glob("*.sql"))


@cache
def load_read_query(name: str) -> QueryFile:
    """A top-level read query (never queries/write/*, schema/* or doctor/*); ValueError otherwise."""
    if not isinstance(name, str) or "/" in name or not _NAME.match(name):
        raise ValueError(f"unknown query {name!r}; available: {', '.join(list_queries())}")
    query = load_query(name)
    if opens_files(query.sql):
        raise ValueError(f"query {name} opens a file named by a parameter; a read query may not")
    return query


def opens_files(sql: str) -> bool:
    """True when SQL hands a parameter to a table function that reads files, or attaches/copies/loads."""
    return bool(_FILE_ACCESS.search(_strip_comments(sql)))


def run_query(
    store: Store,
    name: str,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_rows: int = DEFAULT_MAX_ROWS,
    **params: Any,
) -> pd.DataFrame:
    """Run a named top-level read query with bound parameters on a fresh cursor and fetch every row."""
    query = load_read_query(name)
    bound = bind_params(query, params)
    started = time.perf_counter()
    cur = store.cursor()
    timer = threading.Timer(timeout_s, cur.interrupt)
    timer.start()
    try:
        # NOTE: execute, not sql(): a relation binds the statement for its columns and then again to
        # run it; an uncached Overview render on the sample takes ~0.9 of its CPU this way (docs/scale.md)
        frame = _fetch_capped(cur.execute(query.sql, bound or None), name, max_rows)
    except Exception as exc:
        if "INTERRUPT" in str(exc).upper():
            raise ValueError(f"query {name} exceeded its {timeout_s:g} s time limit") from exc
        if isinstance(exc, duckdb.Error) and store_error_kind(exc) != "other":
            raise ValueError(describe_store_error(store.path, exc)) from exc
        raise
    finally:
        timer.cancel()
        cur.close()
    log.debug("query %s: %d rows in %.3f s", name, len(frame), time.perf_counter() - started)
    return frame


def execute_write(cursor: Any, name: str, **params: Any) -> None:
    """Run a statement of queries/write/NAME.sql on a write transaction's cursor (any rows it
    returns are fetched from that cursor: temp tables and registrations live on it alone)."""
    query = load_query(f"write/{name}")
    cursor.execute(query.sql, bind_params(query, params))


def bind_params(query: QueryFile, params: dict[str, Any]) -> dict[str, Any]:
    """Check names against the header, coerce values to their declared types, fill defaults."""
    declared = {p.name: p for p in query.params}
    extra = sorted(set(params) - {n for n, p in declared.items() if p.catalog_key is None})
    if extra:
        raise ValueError(f"query {query.name}: unknown parameter(s) {', '.join(extra)}")
    bound: dict[str, Any] = {}
    for p in query.params:
        if p.catalog_key is not None:
            bound[p.name] = catalog.exported_names(p.catalog_key)
        elif p.name in params and params[p.name] is not None:
            bound[p.name] = coerce(p, params[p.name], query.name)
        elif p.is_optional:
            bound[p.name] = None
        else:
            raise ValueError(f"query {query.name}: missing parameter {p.name} ({p.sql_type})")
    check_ranges(query.name, bound)
    return bound


def check_ranges(query_name: str, bound: dict[str, Any]) -> None:
    """The meaning every query gives $step, $q, $start and $end: a step > 0 s, quantiles in [0, 1],
    and a range that does not end before it starts."""
    step = bound.get("step")
    if step is not None and not (math.isfinite(step) and step > 0):
        raise ValueError(f"query {query_name}: parameter step={step:g} must be a positive number of seconds")
    for q in bound.get("q") or []:
        if not (isinstance(q, (int, float)) and 0 <= q <= 1):
            raise ValueError(f"query {query_name}: parameter q={q} must be a quantile from 0 to 1")
    start, end = bound.get("start"), bound.get("end")
    if isinstance(start, datetime) and isinstance(end, datetime) and end < start:
        raise ValueError(
            f"query {query_name}: parameter end={end:%Y-%m-%dT%H:%M:%S} is before start={start:%Y-%m-%dT%H:%M:%S}"
        )


def coerce(p: Param, value: Any, query_name: str) -> Any:
    """Convert a CLI string or Python value to the parameter's SQL type."""
    try:
        if p.sql_type == "TIMESTAMP":
            return parse_time(value)
        if p.sql_type in ("DOUBLE", "FLOAT"):
            return float(value)
        if p.sql_type in ("INTEGER", "BIGINT"):
            return int(value)
        if p.sql_type == "DOUBLE[]":
            return [float(v) for v in _as_list(value)]
        if p.sql_type.endswith("[]"):
            return _as_list(value)
        return str(value)
    except (TypeError, ValueError, OverflowError, OSError) as exc:
        raise ValueError(f"query {query_name}: parameter {p.name}={value!r} is not a {p.sql_type}") from exc


def parse_time(value: Any) -> datetime:
    """ISO-8601 text, epoch seconds (number or numeric text) or a datetime → naive UTC datetime."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, (int, float)) or (isinstance(value, str) and _is_number(value)):
        dt = datetime.fromtimestamp(float(value), tz=UTC)
    elif isinstance(value, str):
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    elif isinstance(value, pd.Timestamp):
        dt = value.to_pydatetime()
    else:
        raise ValueError(f"not a time: {value!r}")
    if dt.tzinfo is not None:
        dt = dt.astimezone(UTC).replace(tzinfo=None)
    return dt


def _as_list(value: Any) -> list:
    """A list param from a list, a scalar, or comma-separated CLI text."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _strip_comments(sql: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in sql.splitlines())


def _fetch_capped(result: Any, name: str, max_rows: int) -> pd.DataFrame:
    """The result's rows, read CHUNK_VECTORS at a time so a result over max_rows stops early.

    NOTE: chunks of pandas, not a DB-API result's Arrow reader: that one holds every row before
    its first batch (30M rows: 573 against 150 MiB).
    """
    chunks = [result.fetch_df_chunk(CHUNK_VECTORS)]  # NOTE: the first, even when empty, has the columns
    num_rows = len(chunks[0])
    while len(chunks[-1]) and num_rows <= max_rows:
        chunks.append(result.fetch_df_chunk(CHUNK_VECTORS))
        num_rows += len(chunks[-1])
    if num_rows > max_rows:
        raise ValueError(f"query {name} returned more than {max_rows:,} rows; narrow the range")
    rows = [chunk for chunk in chunks if len(chunk)] or chunks[:1]
    frame = rows[0] if len(rows) == 1 else pd.concat(rows, ignore_index=True)
    # NOTE: a chunk whose text is all NULL (or that has no rows) types it as object, others as str
    # (as Arrow does): text is str whatever the chunk held; only such columns are converted
    untyped = {
        column: "str"
        for column, kind, *_ in result.description
        if str(kind) == "VARCHAR" and frame[column].dtype == object
    }
    return frame.astype(untyped) if untyped else frame
