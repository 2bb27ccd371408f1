"""Helpers shared by the subcommands: the --db flag and JSON output."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from dashboard.core.config import DB_ENV_VAR, default_db_path


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """--db PATH, defaulting to $KVSCOPE_DB or ./data/kvscope.duckdb."""
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help=f"DuckDB store path (default: ${DB_ENV_VAR} or {default_db_path()})",
    )


def db_path(args: argparse.Namespace) -> Path:
    """The store path chosen by --db or the environment."""
    return args.db or default_db_path()


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
