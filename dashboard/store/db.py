"""The DuckDB store: one connection per process, a cursor per call, migrations in order.

NOTE: DuckDB allows one read-write process per database file. Inside a process the
connection is shared and every caller takes its own cursor (a connection is not thread-safe;
cursors are). Writes go through a lock so one writer transaction runs at a time.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from dashboard.core.config import QUERIES_DIR, duckdb_threads

SCHEMA_DIR = QUERIES_DIR / "schema"


@dataclass
class Store:
    """An open kvscope database: the path, the process's connection and its write lock."""

    path: Path
    connection: duckdb.DuckDBPyConnection
    read_only: bool = False
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    # NOTE: series_key → series_id of the series this process's committed writes met: a series_id
    # never changes once stored, and a write whose series are all here skips registering them.
    known_series: dict[str, int] = field(default_factory=dict)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A fresh cursor for one call (safe to use from the calling thread only)."""
        return self.connection.cursor()

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor inside BEGIN … COMMIT; any exception rolls the whole write back."""
        if self.read_only:
            raise ValueError(f"store {self.path} is open read-only; writes are not allowed")
        with self.write_lock:
            cur = self.cursor()
            cur.execute("BEGIN TRANSACTION")
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            else:
                cur.execute("COMMIT")
            finally:
                cur.close()

    def close(self) -> None:
        """Close the connection (checkpoints the WAL)."""
        self.connection.close()


def connect(database: str, read_only: bool = False, config: dict | None = None) -> duckdb.DuckDBPyConnection:
    """duckdb.connect, with at most $KVSCOPE_DUCKDB_THREADS worker threads when that is set.

    NOTE: a SET after connecting rather than a connect config: DuckDB refuses a second connection
    to a file with another config than the first's (a user's own duckdb.connect, say).
    """
    threads = duckdb_threads()  # NOTE: a bad value is refused before anything is opened
    connection = duckdb.connect(database, read_only=read_only, config=config or {})
    if threads is not None:
        connection.execute(f"SET threads = {threads}")
    return connection


def open_store(path: str | Path, read_only: bool = False) -> Store:
    """Open (creating if needed) the store at path and apply pending migrations.

    A store that is locked, truncated, damaged or not DuckDB at all is a ValueError of one line
    that says what is wrong and what to do; a damaged store is refused before anything is written.
    """
    path = Path(path)
    if read_only and not path.exists():
        raise ValueError(f"store {path} does not exist")
    if path.is_dir():
        raise ValueError(f"store {path} is a directory; give the path of a .duckdb file")
    if read_only:
        return _open_current(path)
    is_new = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        connection = connect(str(path))
    except duckdb.Error as exc:
        raise ValueError(describe_store_error(path, exc)) from exc
    store = Store(path=path, connection=connection, read_only=False)
    try:
        if not is_new:
            # NOTE: DuckDB checks a block's checksum only when it reads the block, and a write can
            # checkpoint into a damaged file; reading every table first keeps such a file as it is.
            from dashboard.store.health import verify_tables  # NOTE: health imports this module

            verify_tables(store)
        migrate(store)
        from dashboard.store.blocks import roll_up  # NOTE: blocks imports this module

        roll_up(store)  # NOTE: a store a writer left (or an older kvscope made) gets its blocks
    except BaseException as exc:
        connection.close()
        if is_new:  # NOTE: a store this call created and could not finish leaves no file behind
            _remove_store_files(path)
        if isinstance(exc, duckdb.Error):
            raise ValueError(describe_store_error(path, exc)) from exc
        raise
    return store


def _open_current(path: Path) -> Store:
    """The store open read-only, once the migrations a store made by an earlier kvscope lacks are applied.

    NOTE: later queries call what later migrations define (macros, block tables), so a read-only
    store must be current; the upgrade is one read-write open, refused (one line) while another
    process holds the file. A current store keeps the connection that checked it (a connection
    costs ~13 ms of CPU: DuckDB builds its catalog of functions for each).
    """
    store = Store(path=path, connection=_connect_read_only(path), read_only=True)
    try:
        behind = bool(pending_migrations(store))
    except duckdb.Error:
        behind = False  # NOTE: not a kvscope store (no migration log); its queries will say so
    except BaseException:
        store.close()
        raise
    if not behind:
        return store
    store.close()
    try:
        open_store(path).close()
    except ValueError as exc:
        raise ValueError(
            f"store {path} was made by an earlier kvscope and needs its schema upgraded, which "
            f"needs it open for writing: {exc}"
        ) from exc
    return Store(path=path, connection=_connect_read_only(path), read_only=True)


def _connect_read_only(path: Path) -> duckdb.DuckDBPyConnection:
    try:
        return connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise ValueError(describe_store_error(path, exc)) from exc


def pending_migrations(store: Store) -> list[str]:
    """The migrations the store has not applied yet (duckdb.Error when it keeps no migration log)."""
    cur = store.cursor()
    try:
        done = {row[0] for row in cur.execute(_bookkeeping("applied")).fetchall()}
    finally:
        cur.close()
    return [f.stem for f in migration_files() if int(f.name[:3]) not in done]


@contextmanager
def store_session(path: str | Path, read_only: bool = False) -> Iterator[Store]:
    """The store open for one unit of work and closed after it. If this call created the file and
    the work fails, the file is removed again: a refused command leaves no empty store behind."""
    path = Path(path)
    is_new = not path.exists()
    store = open_store(path, read_only=read_only)
    try:
        yield store
    except BaseException:
        store.close()
        if is_new:
            _remove_store_files(path)
        raise
    store.close()


def _remove_store_files(path: Path) -> None:
    path.unlink(missing_ok=True)
    Path(f"{path}.wal").unlink(missing_ok=True)


def store_error_kind(exc: BaseException) -> str:
    """What a DuckDB error says about the file: locked, not-duckdb, truncated, damaged, version or other."""
    text = str(exc)
    if "Could not set lock" in text or "Conflicting lock" in text:
        return "locked"
    if "not a valid DuckDB database file" in text:
        return "not-duckdb"
    if "Could not read enough bytes" in text or "Could not read all bytes" in text:
        return "truncated"
    if "Corrupt database file" in text or "checksum" in text.lower():
        return "damaged"
    if "version number" in text:
        return "version"
    return "other"


def describe_store_error(path: Path, exc: BaseException) -> str:
    """One line for a DuckDB error on the store at path: what is wrong and what to do."""
    text = str(exc)
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(exc).__name__)
    salvage = f"run `kvscope doctor --db {path} --salvage NEW.duckdb` to copy what is readable"
    kind = store_error_kind(exc)
    if kind == "locked":
        holder = re.search(r"held in (.+?) \(PID (\d+)\)", text)
        who = f" ({Path(holder.group(1)).name}, PID {holder.group(2)})" if holder else ""
        return (
            f"store {path} is in use by another process{who}; stop it (a `kvscope collect` or an app "
            "with a live source) or wait for it to finish, then try again"
        )
    if kind == "not-duckdb":
        return (
            f"{path} is not a DuckDB database file; give the path of a kvscope store "
            "(or move this file away: a new store is created where none exists)"
        )
    if kind == "truncated":
        return f"store {path} is truncated (shorter than its own index says) and was left as it is; {salvage}"
    if kind == "damaged":
        block = re.search(r"block at location (\d+)", text)
        where = f" (checksum mismatch in the block at byte {block.group(1)})" if block else ""
        return f"store {path} is damaged{where} and was left as it is; {salvage}"
    if kind == "version":
        return f"store {path} was written by another DuckDB version ({first}); open it with that version"
    return f"cannot use store {path}: {first}"


def migration_files() -> list[Path]:
    """queries/schema/NNN_*.sql in version order."""
    files = sorted(SCHEMA_DIR.glob("[0-9][0-9][0-9]_*.sql"))
    versions = [int(f.name[:3]) for f in files]
    assert len(set(versions)) == len(versions), f"duplicate migration numbers in {SCHEMA_DIR}"
    return files


def migrate(store: Store) -> list[str]:
    """Apply every migration not yet recorded, each in its own transaction; returns their names."""
    cur = store.cursor()
    cur.execute(_bookkeeping("create_log"))
    done = {row[0] for row in cur.execute(_bookkeeping("applied")).fetchall()}
    applied = []
    for file in migration_files():
        version = int(file.name[:3])
        if version in done:
            continue
        with store.transaction() as tx:
            tx.execute(file.read_text())
            tx.execute(_bookkeeping("record"), {"version": version, "name": file.stem})
        applied.append(file.stem)
    return applied


def _bookkeeping(name: str) -> str:
    """One of the migration log's statements (queries/migrations/NAME.sql)."""
    return (QUERIES_DIR / "migrations" / f"{name}.sql").read_text()
