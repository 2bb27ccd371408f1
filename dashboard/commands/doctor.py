"""kvscope doctor: say what state a store is in; copy what is readable of a damaged one into a new file."""

from __future__ import annotations

import argparse
from pathlib import Path

from dashboard.commands._common import add_db_argument, db_path, emit_json
from dashboard.services.doctor import diagnose, report_dict, report_lines, salvage_lines, salvage_store

NAME = "doctor"
HELP = "report a store's state (locked, truncated, damaged, ok) and salvage what is readable into a new file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--db, --salvage NEW.duckdb, --json."""
    add_db_argument(parser)
    parser.add_argument(
        "--salvage",
        type=Path,
        default=None,
        metavar="NEW.duckdb",
        help="copy every readable row into this new store file (never overwrites an existing file)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Report the state (exit 0 when the store is healthy, 1 when not); salvage when asked."""
    path = db_path(args)
    if args.salvage is not None:
        result = salvage_store(path, args.salvage)
        if args.json:
            emit_json({"salvage": result.to_dict()})
        else:
            print("\n".join(salvage_lines(result)))
        return 0
    report = diagnose(path)
    if args.json:
        emit_json(report_dict(report))
    else:
        print("\n".join(report_lines(report)))
    return 0 if report.state == "ok" else 1
