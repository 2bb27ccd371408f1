"""kvscope mrc TRACE: hit ratio versus capacity — exact in one pass for LRU, by sweep for other policies."""

from __future__ import annotations

import argparse

import numpy as np

from dashboard.commands._common import add_db_argument, emit_json
from dashboard.commands._trace_args import add_trace_arguments, load_trace
from dashboard.engine.mrc import default_capacities
from dashboard.engine.policies import policy_info, policy_names
from dashboard.services.sweep import policy_curve

NAME = "mrc"
HELP = "hit ratio versus cache capacity (exact one-pass LRU curve; other policies by sweep)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """TRACE, --format, --block-tokens, --policy, --workers, --points, --capacities, --json, --db."""
    add_trace_arguments(parser)
    parser.add_argument(
        "--policy",
        default="lru",
        help=f"eviction policy: {', '.join(policy_names())} (LRU: exact one pass; others: one replay "
        "per capacity)",
    )
    parser.add_argument("--workers", type=int, default=2, help="processes for non-LRU curves (default 2)")
    parser.add_argument("--points", type=int, default=50, help="log-spaced capacities (default 50)")
    parser.add_argument(
        "--capacities", default=None, help="comma-separated capacities in blocks instead of the log grid"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_db_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Compute and print the curve."""
    if args.points < 2:
        raise ValueError(f"--points must be at least 2, got {args.points}")
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    policy_info(args.policy)
    given = _capacities(args.capacities) if args.capacities is not None else None
    trace = load_trace(args)
    caps = given if given is not None else default_capacities(trace.num_blocks, args.points)
    curve = policy_curve(trace, args.policy, caps, args.workers)
    if args.json:
        emit_json(curve.to_dict())
        return 0
    print(f"{'capacity_blocks':>16} {'block_hit_ratio':>16} {'token_hit_ratio':>16}")
    for c, b, t in zip(curve.capacity_blocks, curve.block_hit_ratio, curve.token_hit_ratio, strict=True):
        print(f"{c:>16,} {b:>16.6f} {t:>16.6f}")
    return 0


def _capacities(text: str) -> np.ndarray:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
        caps = np.array(values, dtype=np.int64)
    except (ValueError, OverflowError):
        raise ValueError(f"--capacities {text}: expected comma-separated whole numbers of blocks") from None
    if caps.size == 0:
        raise ValueError(f"--capacities {text!r}: expected at least one capacity in blocks")
    if caps.min() < 0:
        raise ValueError(f"--capacities {text}: a capacity cannot be negative, got {caps.min()}")
    return np.sort(caps)
