"""The DuckDB store: one connection per process, a cursor per call, migrations in order.

NOTE: DuckDB allows one read-write process per database file. Inside a process the
connection is shared and every caller takes its own cursor (a connection is not thread-safe;
cursors are). Writes go through a lock so one writer transaction runs at a time.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from dashboard.core.config import QUERIES_DIR

SCHEMA_DIR = QUERIES_DIR / "schema"


@dataclass
class Store:
    """An open kvscope database: the path, the process's connection and its write lock."""

    path: Path
    connection: duckdb.DuckDBPyConnection
    read_only: bool = False
    write_lock: threading.Lock = field(default_factory=threading.Lock)

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


def open_store(path: str | Path, read_only: bool = False) -> Store:
    """Open (creating if needed) the store at path and apply pending migrations."""
    path = Path(path)
    if read_only and not path.exists():
        raise ValueError(f"store {path} does not exist")
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        connection = duckdb.connect(str(path), read_only=read_only)
    except duckdb.IOException as exc:
        raise ValueError(f"cannot open store {path}: {exc}") from exc
    store = Store(path=path, connection=connection, read_only=read_only)
    if not read_only:
        migrate(store)
    return store


def migration_files() -> list[Path]:
    """queries/schema/NNN_*.sql in version order."""
    files = sorted(SCHEMA_DIR.glob("[0-9][0-9][0-9]_*.sql"))
    versions = [int(f.name[:3]) for f in files]
    assert len(set(versions)) == len(versions), f"duplicate migration numbers in {SCHEMA_DIR}"
    return files


def migrate(store: Store) -> list[str]:
    """Apply every migration not yet recorded, each in its own transaction; returns their names."""
    cur = store.cursor()
    cur.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL,"
        " applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)"
    )
    done = {row[0] for row in cur.execute("SELECT version FROM schema_migrations").fetchall()}
    applied = []
    for file in migration_files():
        version = int(file.name[:3])
        if version in done:
            continue
        with store.transaction() as tx:
            tx.execute(file.read_text())
            tx.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", [version, file.stem])
        applied.append(file.stem)
    return applied
