"""kvscope query NAME: run queries/NAME.sql with named parameters and print its rows."""

from __future__ import annotations

import argparse
import json
import sys

import pandas as pd

from dashboard.commands._common import add_db_argument, add_source_argument, db_path, parquet_source
from dashboard.services.queries import named_query_with_note
from dashboard.store.queries import list_queries, load_read_query

NAME = "query"
HELP = "run a named query from queries/ over the store (or a Parquet export) and print its rows"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """NAME, --db or --source, --param KEY=VALUE (repeatable), --format json|csv|table."""
    parser.add_argument(
        "name",
        nargs="?",
        help="query name, e.g. hit_rate or ttft_quantiles (file queries/NAME.sql; --list names them all)",
    )
    parser.add_argument("--list", action="store_true", help="print the names of the read queries and exit")
    add_db_argument(parser)
    add_source_argument(parser)
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a named parameter; times are ISO-8601 or epoch seconds (UTC), lists comma-separated",
    )
    parser.add_argument("--format", choices=("json", "csv", "table"), default="table", help="output format")


def run(args: argparse.Namespace) -> int:
    """Run the query read-only and print it in the chosen format."""
    if args.list:
        print("\n".join(list_queries()))
        return 0
    if not args.name:
        raise ValueError(f"name a query (one of: {', '.join(list_queries())})")
    load_read_query(args.name)  # NOTE: an unknown or write query is refused before the store is opened
    params = parse_params(args.param)
    source = parquet_source(args)
    frame, note = named_query_with_note(db_path(args), args.name, params, source)
    if note is not None:  # instead of a silent "(no rows)": the step is too short for the data
        print(f"kvscope query: {note}", file=sys.stderr)
    if note is None or len(frame) or args.format != "table":
        print_frame(frame, args.format)
    return 0


def parse_params(items: list[str]) -> dict[str, str]:
    """KEY=VALUE strings to a dict; a malformed or repeated key is a ValueError."""
    params: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--param {item!r}: expected KEY=VALUE")
        if key in params:
            raise ValueError(f"--param {key} given twice")
        params[key] = value
    return params


def print_frame(frame: pd.DataFrame, fmt: str) -> None:
    """Print rows as a JSON list of objects, CSV, or an aligned table (whole-number counts as integers)."""
    frame = whole_counts(frame)
    if fmt == "json":
        print(json.dumps(json.loads(frame.to_json(orient="records", date_format="iso", date_unit="s"))))
    elif fmt == "csv":
        frame.to_csv(sys.stdout, index=False, date_format="%Y-%m-%dT%H:%M:%S")
    else:
        print(frame.to_string(index=False) if len(frame) else "(no rows)")


def whole_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Count columns (num_*) whose values are all whole numbers as integers, not 124.0."""
    columns = {}
    for name in frame.columns:
        values = frame[name]
        if str(name).startswith("num_") and pd.api.types.is_float_dtype(values):
            known = values.dropna()
            if (known == known.round()).all() and (known.abs() < 2**53).all():
                columns[name] = values.round().astype("Int64")
    return frame.assign(**columns) if columns else frame
