"""kvscope export --parquet DIR: the store's metric history as Hive-partitioned Parquet."""

from __future__ import annotations

import argparse
from pathlib import Path

from dashboard.commands._common import add_db_argument, db_path, emit_json
from dashboard.store.db import store_session
from dashboard.store.parquet import export_parquet

NAME = "export"
HELP = "write the store's series, samples, requests and annotations as Hive-partitioned Parquet"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--parquet DIR, --db, --overwrite, --json."""
    parser.add_argument(
        "--parquet",
        type=Path,
        required=True,
        metavar="DIR",
        help="folder to write (new or empty; samples/family=…/day=…/*.parquet and so on)",
    )
    add_db_argument(parser)
    parser.add_argument(
        "--overwrite", action="store_true", help="replace an earlier export in DIR (only a kvscope export)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Export from the store, opened read-only, and report the rows per table."""
    path = db_path(args)
    if not path.exists():
        raise ValueError(
            f"store {path} does not exist (load data with `kvscope load-sample` or `kvscope collect`)"
        )
    with store_session(path, read_only=True) as store:
        result = export_parquet(store, args.parquet, overwrite=args.overwrite)
    if args.json:
        emit_json(result.to_dict())
    else:
        counts = ", ".join(f"{n:,} {table}" for table, n in result.num_rows.items())
        print(f"exported {path} to {result.path}: {counts}")
    return 0
