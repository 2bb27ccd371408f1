"""History as Parquet: export the store's metric history as Hive-partitioned Parquet, and open such
an export again as a read-only store.

Layout of `kvscope export --parquet DIR` (SQL in queries/export/):

    DIR/series/family=F/data_0.parquet           one row per series (series_id joins samples)
    DIR/samples/family=F/day=D/data_0.parquet    one row per sample
    DIR/requests/day=D/…, DIR/annotations/day=D/…
    DIR/_kvscope_export.json                     what was written: tables, rows, schema version

family is the metric's Prometheus family (queries/export/family_macro.sql), day the UTC date.
Traces and saved replays are not history and stay in the .duckdb store.

A source is a private in-memory DuckDB that runs the store's migrations (the same tables and
macros), then replaces each exported table by a view over its files with the table's own column
types (queries/source/), so every named query runs unchanged; what an export does not hold stays
an empty table. The source only reads: nothing in it is written back to the files.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from dashboard import __version__
from dashboard.store.db import Store, connect, migrate, migration_files
from dashboard.store.queries import bind_params, execute_write, load_query, run_query

EXPORTED_TABLES = ("series", "samples", "requests", "annotations")
REQUIRED_TABLES = ("series", "samples")  # an export without them is no metric history
MANIFEST = "_kvscope_export.json"  # NOTE: a leading _ hides it from Spark's and Hive's file listing
MANIFEST_FORMAT = "kvscope-parquet-export"
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_GLOB_CHARS = "*?[{"


@dataclass(frozen=True)
class ExportResult:
    """One finished export: where it is and how many rows each table wrote."""

    path: Path
    num_rows: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        """The --json form."""
        return {"path": str(self.path), "tables": dict(self.num_rows)}


def export_parquet(store: Store, target: Path, *, overwrite: bool = False) -> ExportResult:
    """Write the store's series, samples, requests and annotations under target as Parquet.

    Atomic: the files go to a hidden folder beside target that is renamed into place once
    complete, so target never holds half an export. A non-empty target is refused unless
    overwrite is set, and even then only when it is an earlier export (it has the manifest).
    """
    target = Path(target)
    _check_target(target, overwrite)
    if not run_query(store, "time_bounds").iloc[0].num_samples:
        raise ValueError(f"store {store.path} holds no metric samples; nothing to export")
    partial = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    try:
        num_rows = _write_tables(store, partial)
        manifest = {
            "format": MANIFEST_FORMAT,
            "kvscope_version": __version__,
            "schema_version": int(migration_files()[-1].name[:3]),
            "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "tables": num_rows,
        }
        (partial / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        _swap_into_place(partial, target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return ExportResult(target, num_rows)


def _check_target(target: Path, overwrite: bool) -> None:
    """One line for a target that cannot (or must not) take an export."""
    if target.exists() and not target.is_dir():
        raise ValueError(f"--parquet {target}: is a file; give a folder")
    if not target.parent.is_dir():
        raise ValueError(f"--parquet {target}: folder {target.parent} does not exist; create it first")
    if target.is_dir() and any(target.iterdir()):
        if not overwrite:
            raise ValueError(
                f"--parquet {target}: is not empty; pass --overwrite to replace an earlier export, "
                "or name a new folder"
            )
        if not (target / MANIFEST).is_file():
            raise ValueError(
                f"--parquet {target}: holds files that are not a kvscope export (no {MANIFEST}); "
                "--overwrite replaces only an earlier export"
            )


def _write_tables(store: Store, folder: Path) -> dict[str, int]:
    """COPY each exported table into folder/TABLE on one cursor (the family macro lives on it)."""
    cur = store.cursor()
    try:
        _run(cur, "export/family_macro")
        num_rows = {}
        for table in EXPORTED_TABLES:
            rows = _run(cur, f"export/{table}", path=_literal(str(folder / table))).fetchone()
            num_rows[table] = int(rows[0]) if rows else 0
    finally:
        cur.close()
    return num_rows


def _swap_into_place(partial: Path, target: Path) -> None:
    """Rename the finished export to target; an earlier export there is moved aside first, then removed."""
    if not target.exists():
        partial.rename(target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
    old.rmdir()
    target.rename(old)
    try:
        partial.rename(target)
    except BaseException:
        old.rename(target)  # NOTE: put the earlier export back rather than leave no export at all
        raise
    shutil.rmtree(old, ignore_errors=True)


# --- reading an export ----------------------------------------------------------------------------


def is_remote(source: str) -> bool:
    """True for a URL (s3://, gs://, https://, …) rather than a local path."""
    return bool(_URL.match(source))


def is_parquet_source(location: str) -> bool:
    """True when location can only be a Parquet export: a URL, a glob or a folder (a store is one file)."""
    return is_remote(location) or any(c in location for c in _GLOB_CHARS) or Path(location).is_dir()


def source_root(source: str) -> str:
    """The export's root as DuckDB reads it: a URL or glob as given, a local folder made absolute."""
    source = source.rstrip("/") or "/"
    return source if is_remote(source) else os.path.abspath(os.path.expanduser(source))


def readable_prefix(source: str) -> str:
    """The folder a locked-down reader of source may read: the root up to its first glob character."""
    root = source_root(source)
    cut = min((root.index(c) for c in _GLOB_CHARS if c in root), default=None)
    prefix = root if cut is None else root[: root.rindex("/", 0, cut) + 1]
    return prefix if prefix.endswith("/") else prefix + "/"


def open_parquet_source(source: str) -> Store:
    """The export at source as a read-only Store (named queries run on it unchanged)."""
    connection = connect_source(source)
    path: Any = source if is_remote(source) else Path(source)  # NOTE: Path() would fold s3:// to s3:/
    return Store(path=path, connection=connection, read_only=True)


def connect_source(source: str, config: dict[str, Any] | None = None) -> duckdb.DuckDBPyConnection:
    """A private in-memory connection with the store's schema and macros, its exported tables
    replaced by views over the Parquet files under source. ValueError (one line) when source is
    not such an export."""
    _check_local_source(source)
    root = source_root(source)
    connection = connect(":memory:", config=config)
    try:
        if is_remote(root):
            _load_httpfs(connection, source)
        migrate(Store(path=Path(":memory:"), connection=connection))
        cur = connection.cursor()
        execute_write(cur, "rollups_off")  # NOTE: an export holds no sample blocks: read samples
        for table in EXPORTED_TABLES:
            files = f"{root}/{table}/**/*.parquet"
            num_files = _run(cur, "source/files", files=_literal(files)).fetchone()[0]
            if num_files:
                columns = ", ".join(
                    f'CAST("{name}" AS {sql_type}) AS "{name}"'
                    for name, sql_type in _run(cur, "source/columns", table=table).fetchall()
                )
                _run(cur, "source/view", table=table, columns=columns, files=_literal(files))
            elif table in REQUIRED_TABLES:
                raise ValueError(
                    f"{source} is not a kvscope Parquet export: no Parquet files under {table}/ "
                    "(write one with `kvscope export --parquet DIR`)"
                )
        cur.close()
    except duckdb.Error as exc:
        connection.close()
        raise ValueError(f"cannot read the Parquet export {source}: {_first_line(exc)}") from exc
    except BaseException:
        connection.close()
        raise
    return connection


def _check_local_source(source: str) -> None:
    """One line for a local source that is missing or a file (URLs and globs are DuckDB's to judge)."""
    if not source.strip():
        raise ValueError("name a Parquet export folder (written by `kvscope export --parquet DIR`)")
    if is_remote(source) or any(c in source for c in _GLOB_CHARS):
        return
    path = Path(source).expanduser()
    if not path.exists():
        raise ValueError(
            f"Parquet source {source} does not exist (write one with `kvscope export --parquet DIR`)"
        )
    if not path.is_dir():
        raise ValueError(
            f"Parquet source {source} is a file; give the folder `kvscope export --parquet` wrote "
            "(a .duckdb store goes to --db)"
        )


def _load_httpfs(connection: duckdb.DuckDBPyConnection, source: str) -> None:
    """Load DuckDB's httpfs extension for a URL source (loaded here: a locked reader cannot autoload)."""
    try:
        connection.load_extension("httpfs")
    except duckdb.Error as exc:
        raise ValueError(
            f"reading {source} needs DuckDB's httpfs extension; install it once with "
            "`python -c \"import duckdb; duckdb.install_extension('httpfs')\"`"
        ) from exc


def _run(cur: duckdb.DuckDBPyConnection, name: str, **values: Any):
    """queries/NAME.sql on cur: `{key}` values spliced (identifiers and quoted literals made here,
    user text last so it is never scanned again), the rest bound as $parameters.

    NOTE: the header comment is dropped before splicing: a newline inside a quoted path would end
    a `--` comment and turn the rest of the path into SQL.
    """
    query = load_query(name)
    sql = "\n".join(line for line in query.sql.splitlines() if not line.lstrip().startswith("--"))
    declared = {p.name for p in query.params}
    for key in ("table", "columns", "path", "files"):
        if key in values and key not in declared:
            sql = sql.replace("{" + key + "}", values[key])
    params = {k: v for k, v in values.items() if k in declared}
    return cur.execute(sql, bind_params(query, params) if query.params else None)


def _literal(text: str) -> str:
    """text as a single-quoted SQL literal (quotes doubled)."""
    return "'" + text.replace("'", "''") + "'"


def _first_line(exc: BaseException) -> str:
    return next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
