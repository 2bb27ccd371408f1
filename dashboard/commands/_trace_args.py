"""The TRACE, --format and --block-tokens arguments the replay commands share."""

from __future__ import annotations

import argparse

from dashboard.core.types import Trace
from dashboard.engine.readers import READERS, read_trace


def add_trace_arguments(parser: argparse.ArgumentParser) -> None:
    """TRACE path plus --format and --block-tokens."""
    parser.add_argument("trace", help="trace file (Mooncake/Bailian JSONL, or requests.parquet)")
    parser.add_argument("--format", choices=sorted(READERS), default=None,
                        help="trace format (default: sniffed from the file)")
    parser.add_argument("--block-tokens", type=int, default=None,
                        help="tokens per block (default: the format's: Mooncake 512, Bailian 16, parquet's column)")


def load_trace(args: argparse.Namespace) -> Trace:
    """Read the trace the arguments name."""
    if args.block_tokens is not None and args.block_tokens <= 0:
        raise ValueError(f"--block-tokens must be positive, got {args.block_tokens}")
    return read_trace(args.trace, args.format, args.block_tokens)
