"""kvscope import-trace TRACE --name NAME: store a trace file in DuckDB to replay and query it by name."""

from __future__ import annotations

import argparse
from pathlib import Path

from dashboard.commands._common import add_db_argument, db_path, emit_json
from dashboard.engine.readers import READERS, check_trace_file
from dashboard.services.traces import import_trace
from dashboard.store.db import store_session

NAME = "import-trace"
HELP = "read a trace file (Mooncake, Bailian, requests.parquet, OpenAI chat log) into the store"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """TRACE, --format, --name, --block-tokens, --json, --db."""
    parser.add_argument("trace", help="trace file")
    parser.add_argument(
        "--format", choices=sorted(READERS), default=None, help="trace format (default: sniffed)"
    )
    parser.add_argument("--name", required=True, help="unique name to store the trace under")
    parser.add_argument(
        "--block-tokens",
        type=int,
        default=None,
        help="tokens per block (default: the format's: Mooncake 512, Bailian 16, openai-chat 16)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_db_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Import the trace and print its summary."""
    if args.block_tokens is not None and args.block_tokens <= 0:
        raise ValueError(f"--block-tokens must be positive, got {args.block_tokens}")
    check_trace_file(Path(args.trace))  # NOTE: before the store is opened (or created)
    with store_session(db_path(args)) as store:
        info = import_trace(store, args.trace, args.format, args.name, args.block_tokens)
    if args.json:
        emit_json(info.to_dict())
    else:
        print(
            f"imported {info.name!r} ({info.format}): {info.num_requests:,} requests, "
            f"{info.num_block_accesses:,} block accesses, {info.num_blocks:,} blocks of {info.block_tokens} tokens"
        )
    return 0
