"""kvscope sql "select …": the read-only SQL console over the store, from the command line."""

from __future__ import annotations

import argparse
import sys

from dashboard.commands._common import add_db_argument, add_source_argument, db_path, parquet_source
from dashboard.commands.query import print_frame
from dashboard.store.console import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, run_sql
from dashboard.store.db import describe_store_error, open_store, store_error_kind

NAME = "sql"
HELP = "run one read-only query over the store (a select: no writes, files, network or settings)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """SQL, --db or --source, --format json|csv|table, --max-rows, --timeout."""
    parser.add_argument("sql", help='one select statement, e.g. "select name, num_requests from traces"')
    add_db_argument(parser)
    add_source_argument(parser)
    parser.add_argument("--format", choices=("json", "csv", "table"), default="table", help="output format")
    parser.add_argument(
        "--max-rows",
        type=int,
        default=DEFAULT_MAX_ROWS,
        help=f"row cap (default {DEFAULT_MAX_ROWS:,}); a longer result is cut and says so on stderr",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help=f"time limit in seconds (default {DEFAULT_TIMEOUT_S:g}); the query is interrupted past it",
    )


def run(args: argparse.Namespace) -> int:
    """Run the statement on the console's locked-down connection and print its rows."""
    if args.max_rows < 1 or args.timeout <= 0:
        raise ValueError("--max-rows must be at least 1 and --timeout positive")
    source = parquet_source(args)
    path = db_path(args)
    if source is None and path.is_file():
        # NOTE: a locked, truncated or foreign file is named here with what to do about it.
        open_store(path, read_only=True).close()
    try:
        result = run_sql(
            source or path,
            args.sql,
            max_rows=args.max_rows,
            timeout_s=args.timeout,
            parquet=source is not None,
        )
    except ValueError as exc:
        if source is None and store_error_kind(exc) in ("damaged", "truncated"):
            raise ValueError(describe_store_error(path, exc)) from None
        raise
    print_frame(result.frame, args.format)
    if result.is_truncated:
        print(
            f"kvscope sql: note: only the first {result.max_rows:,} rows are shown (--max-rows)",
            file=sys.stderr,
        )
    return 0
