"""kvscope load-sample: load a sample folder (default: the embedded one) into the store."""

from __future__ import annotations

import argparse
from pathlib import Path

from dashboard.commands._common import add_db_argument, db_path
from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.services.sample import load_sample

NAME = "load-sample"
HELP = "load the embedded sample dataset (or --dir) into the store"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--db, --dir, --if-empty."""
    add_db_argument(parser)
    parser.add_argument(
        "--dir", type=Path, default=SAMPLE_DATA_DIR, help="interchange folder (default: embedded sample)"
    )
    parser.add_argument(
        "--if-empty", action="store_true", help="do nothing when the store already holds samples"
    )


def run(args: argparse.Namespace) -> int:
    """Load and report row counts."""
    counts = load_sample(db_path(args), args.dir, only_if_empty=args.if_empty)
    if counts is None:
        print(f"{db_path(args)} already holds samples; left as it is")
    else:
        print(f"loaded into {db_path(args)}: " + ", ".join(f"{v:,} {k}" for k, v in counts.items()))
    return 0
