"""The state of a store file and a salvage of what is readable (`kvscope doctor`).

DuckDB checks a block's checksum only when it reads the block, so a damaged store can open and
answer some queries. check_tables reads every value of every table; salvage copies every
readable row into a new store, table by table, falling back to row groups and then to vectors
of rows around a damaged block. SQL lives in queries/doctor/; the only identifiers spliced in
are table names both stores' catalogs hold, quoted here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from dashboard.store.blocks import rebuild_blocks
from dashboard.store.db import (
    Store,
    connect,
    describe_store_error,
    migration_files,
    open_store,
    store_error_kind,
)
from dashboard.store.queries import bind_params, load_query

ROW_GROUP_ROWS = 122_880  # DuckDB's row group size
VECTOR_ROWS = 2_048  # DuckDB's vector size: the finest grain worth trying
# NOTE: the migration log is the new store's own; blocks and the write log derive from samples.
NOT_COPIED = ("schema_migrations", "sample_blocks", "sample_writes")


@dataclass(frozen=True)
class TableCheck:
    """One table after reading all of it: its row count, or the error that stopped the read."""

    name: str
    num_rows: int | None
    error: str | None

    @property
    def is_ok(self) -> bool:
        """True when every value of the table was read."""
        return self.error is None


@dataclass(frozen=True)
class TableSalvage:
    """One table's salvage: rows copied and rows (rowids) left behind in damaged blocks."""

    name: str
    num_copied: int
    num_lost: int | None  # None when even the row count could not be read


def _sql(name: str, **identifiers: str) -> tuple[str, Any]:
    query = load_query(f"doctor/{name}")
    sql = query.sql
    for key, text in identifiers.items():
        sql = sql.replace("{" + key + "}", text)
    return sql, query


def _run(cur: duckdb.DuckDBPyConnection, name: str, identifiers: dict[str, str] | None = None, **params: Any):
    sql, query = _sql(name, **(identifiers or {}))
    return cur.execute(sql, bind_params(query, params) if query.params else None)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _first_line(exc: BaseException) -> str:
    return next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)


def check_tables(store: Store) -> list[TableCheck]:
    """Read every value of every table of the store; one TableCheck per table."""
    cur = store.cursor()
    try:
        names = [row[0] for row in _run(cur, "tables", database=None).fetchall()]
        checks = []
        for name in names:
            try:
                num_rows = int(_run(cur, "scan", table=f"main.{_quoted(name)}").fetchone()[0])
                checks.append(TableCheck(name, num_rows, None))
            except duckdb.Error as exc:
                checks.append(TableCheck(name, None, _first_line(exc)))
        return checks
    finally:
        cur.close()


@dataclass(frozen=True)
class StoreReport:
    """What `kvscope doctor` found: the file's state, a one-line message and each table's check."""

    path: Path
    state: str  # ok, missing, not-a-file, locked, not-duckdb, truncated, damaged, version, other
    message: str
    size_bytes: int | None
    has_wal: bool
    schema_version: int | None
    latest_schema_version: int
    tables: tuple[TableCheck, ...]


def inspect_store(path: Path) -> StoreReport:
    """Open the file read-only (never writing it), read every table and say what state it is in."""
    wal = Path(f"{path}.wal").exists()
    latest = max(int(f.name[:3]) for f in migration_files())

    def report(state: str, message: str, version: int | None = None, tables=()) -> StoreReport:
        size = path.stat().st_size if path.is_file() else None
        return StoreReport(path, state, message, size, wal, version, latest, tuple(tables))

    if not path.exists():
        return report("missing", f"no store at {path} (`kvscope load-sample` or `kvscope collect` makes one)")
    if not path.is_file():
        return report("not-a-file", f"{path} is not a file; give the path of a .duckdb store")
    try:
        connection = connect(str(path), read_only=True)
    except duckdb.Error as exc:
        return report(store_error_kind(exc), describe_store_error(path, exc))
    store = Store(path=path, connection=connection, read_only=True)
    try:
        tables = check_tables(store)
        version = _schema_version(store, tables)
    finally:
        store.close()
    bad = [t for t in tables if not t.is_ok]
    if bad:
        error = RuntimeError(bad[0].error)
        return report(store_error_kind(error), describe_store_error(path, error), version, tables)
    return report("ok", f"store {path} is readable: {len(tables)} tables, every value read", version, tables)


def _schema_version(store: Store, tables: list[TableCheck]) -> int | None:
    if not any(t.name == "schema_migrations" and t.is_ok for t in tables):
        return None
    cur = store.cursor()
    try:
        value = _run(cur, "schema_version").fetchone()[0]
    finally:
        cur.close()
    return None if value is None else int(value)


def verify_tables(store: Store) -> None:
    """ValueError (what is wrong, what to do) when any table of the store cannot be read in full."""
    for check in check_tables(store):
        if not check.is_ok:
            raise ValueError(describe_store_error(store.path, RuntimeError(check.error)))


def salvage(source: Path, target: Path) -> list[TableSalvage]:
    """Copy every readable row of the store at source into a new store at target (never overwritten)."""
    if target.exists() or Path(f"{target}.wal").exists():
        raise ValueError(f"{target} already exists; name a new file to salvage into")
    if not target.parent.is_dir():
        raise ValueError(f"{target.parent} is not a folder; create it or name another file")
    if target.resolve() == source.resolve():
        raise ValueError("--salvage names the damaged store itself; name a new file")
    store = open_store(target)
    try:
        cur = store.cursor()
        literal = "'" + str(source.resolve()).replace("'", "''") + "'"
        try:
            _run(cur, "attach", {"path": literal})
        except duckdb.Error as exc:
            if store_error_kind(exc) in ("locked", "version", "other"):
                raise ValueError(describe_store_error(source, exc)) from exc
            raise ValueError(
                f"nothing in {source} can be read (its catalog is lost: {_first_line(exc)}); restore a "
                "backup or rebuild the store with `kvscope load-sample` or `kvscope collect`"
            ) from exc
        try:
            result = _copy_tables(store, cur)
            _advance_sequences(cur)
        finally:
            _run(cur, "detach")
            cur.close()
        rebuild_blocks(store)  # NOTE: blocks summarise samples; they are made again, never copied
    except BaseException:
        store.close()
        target.unlink(missing_ok=True)
        Path(f"{target}.wal").unlink(missing_ok=True)
        raise
    store.close()
    return result


def _copy_tables(store: Store, cur: duckdb.DuckDBPyConnection) -> list[TableSalvage]:
    own = {row[0] for row in _run(cur, "tables", database=None).fetchall()}
    theirs = [row[0] for row in _run(cur, "tables", database="damaged").fetchall()]
    # NOTE: only tables the new store's migrations created are copied: the identifiers spliced
    # into SQL come from both catalogs, and the copy needs the target's constraints and defaults.
    result = []
    for name in theirs:
        if name not in own or name in NOT_COPIED:
            continue
        ident = {"table": _quoted(name)}
        try:
            num_rows, span = (int(v) for v in _run(cur, "row_span", ident).fetchone())
        except duckdb.Error:
            result.append(TableSalvage(name, 0, None))
            continue
        copied = _copy_range(store, ident, 0, span, min(span, ROW_GROUP_ROWS))
        result.append(TableSalvage(name, copied, num_rows - copied))
    return result


def _copy_range(store: Store, ident: dict[str, str], lo: int, hi: int, step: int) -> int:
    """Rows copied from rowids [lo, hi): each chunk in its own transaction; a failed one is split."""
    copied = 0
    for start in range(lo, hi, max(step, 1)):
        end = min(start + step, hi)
        try:
            with store.transaction() as tx:
                _run(tx, "copy_rows", ident, lo=start, hi=end)
                copied += int(tx.fetchone()[0])
        except duckdb.Error:
            if end - start > VECTOR_ROWS:
                copied += _copy_range(store, ident, start, end, max(VECTOR_ROWS, (end - start) // 60))
    return copied


def _advance_sequences(cur: duckdb.DuckDBPyConnection) -> None:
    """Make each sequence of the new store continue after the damaged store's last value."""
    own = {row[0] for row in _run(cur, "sequences", database=None).fetchall()}
    for name, last_value in _run(cur, "sequences", database="damaged").fetchall():
        if name in own and last_value:
            _run(cur, "sequence_advance", sequence=name, num=int(last_value))
