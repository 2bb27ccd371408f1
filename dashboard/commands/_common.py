"""Helpers shared by the subcommands: the --db and --source flags, JSON output, compiling kernels first."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from dashboard.core.config import DB_ENV_VAR, DEFAULT_DB_PATH, default_db_path
from dashboard.services.warmup import is_warm, marker_path, warm_up


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """--db PATH, defaulting to $KVSCOPE_DB or ./data/kvscope.duckdb."""
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help=f"DuckDB store path (default: ${DB_ENV_VAR} or {default_db_path()})",
    )


def db_path(args: argparse.Namespace) -> Path:
    """The store path chosen by --db or the environment; a --db in a missing folder is bad input.

    NOTE: only the default folder (./data, which `make run` and the demos use) is created on
    demand; a typo in --db must not make directories.
    """
    if args.db is None:
        return default_db_path()
    if args.db.is_dir():
        raise ValueError(f"--db {args.db}: is a directory; give the path of a .duckdb file")
    if not args.db.parent.is_dir() and args.db.parent.resolve() != DEFAULT_DB_PATH.parent.resolve():
        raise ValueError(f"--db {args.db}: folder {args.db.parent} does not exist; create it first")
    return args.db


def add_source_argument(parser: argparse.ArgumentParser) -> None:
    """--source SOURCE: read a Parquet export instead of the store (never --db's default)."""
    parser.add_argument(
        "--source",
        default=None,
        metavar="SOURCE",
        help="read the Parquet export `kvscope export --parquet` wrote instead of the store: its folder, "
        "a glob, or an s3:// or https:// URL (read-only; not with --db)",
    )


def parquet_source(args: argparse.Namespace) -> str | None:
    """The --source export, or None to read the store; --source with --db is bad input."""
    if args.source is not None and args.db is not None:
        raise ValueError("--source and --db name two stores; give one")
    return args.source


def check_store_writable(path: Path) -> None:
    """Open an existing store for writing and close it again, so a locked, damaged or foreign file
    is refused before a long replay or sweep rather than after it (a missing one is made later)."""
    if path.exists():
        # NOTE: imported here: DuckDB costs start-up time that a replay without --save does not need.
        from dashboard.store.db import open_store

        open_store(path).close()


def emit_json(obj: Any) -> None:
    """Print obj as one JSON object on stdout (NaN becomes null)."""
    print(json.dumps(_clean(obj), separators=(",", ":")), file=sys.stdout)


def _clean(obj: Any) -> Any:
    if isinstance(obj, float):
        return None if math.isnan(obj) or math.isinf(obj) else obj
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalars
        return _clean(obj.item())
    return obj


def compile_kernels() -> None:
    """Run the warmup with a progress line per step on stderr (replay, mrc, sweep and plan call it when cold)."""

    def progress(i: int, count: int, name: str, elapsed_s: float) -> None:
        print(f"[{i + 1}/{count}] compiling {name} … ({elapsed_s:.0f} s so far)", file=sys.stderr, flush=True)

    seconds = warm_up(progress)
    print(f"kernels ready in {seconds:.1f} s (cached on disk; marker {marker_path().name})", file=sys.stderr)


def ensure_compiled() -> None:
    """Compile first, saying so, when the kernels are not compiled for today's sources."""
    if not is_warm():
        print("kvscope: compiling the replay kernels once (kvscope warmup) …", file=sys.stderr, flush=True)
        compile_kernels()
