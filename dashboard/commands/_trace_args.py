"""The TRACE, --format and --block-tokens arguments the replay commands share.

TRACE is a file, or the name of a trace imported into the store with `kvscope import-trace`.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
from pathlib import Path

from dashboard.commands._common import db_path
from dashboard.core.types import Trace
from dashboard.engine.readers import READERS, read_trace

STORED_TRACES_MODULE = "dashboard.services.traces"  # load_stored_trace(store, name), when installed


def add_trace_arguments(parser: argparse.ArgumentParser) -> None:
    """TRACE path plus --format and --block-tokens."""
    parser.add_argument(
        "trace", help="trace file (Mooncake/Bailian JSONL, requests.parquet) or a stored trace name"
    )
    parser.add_argument(
        "--format",
        choices=sorted(READERS),
        default=None,
        help="trace format (default: sniffed from the file)",
    )
    parser.add_argument(
        "--block-tokens",
        type=int,
        default=None,
        help="tokens per block (default: the format's: Mooncake 512, Bailian 16, parquet's column)",
    )


def load_trace(args: argparse.Namespace) -> Trace:
    """Read the trace the arguments name: a file, else a trace stored by import-trace."""
    if args.block_tokens is not None and args.block_tokens <= 0:
        raise ValueError(f"--block-tokens must be positive, got {args.block_tokens}")
    if Path(args.trace).exists() or importlib.util.find_spec(STORED_TRACES_MODULE) is None:
        return read_trace(args.trace, args.format, args.block_tokens)
    path = db_path(args) if hasattr(args, "db") else None
    if path is None or not Path(path).exists():
        raise ValueError(f"{args.trace}: no such trace file (and no store at {path} to look it up in)")
    # NOTE: DuckDB is imported only when a stored trace is named (start-up time of file replays).
    from dashboard.store.db import open_store

    store = open_store(path, read_only=True)
    try:
        return importlib.import_module(STORED_TRACES_MODULE).load_stored_trace(store, args.trace)
    finally:
        store.close()
