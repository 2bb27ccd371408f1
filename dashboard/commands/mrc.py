"""kvscope mrc TRACE: hit ratio versus capacity — exact in one pass for LRU, in passes for FIFO, by sweep (with a
progress bar on stderr) or sampled for other policies."""

from __future__ import annotations

import argparse
import sys

import numpy as np
from tqdm import tqdm

from dashboard.commands._common import add_db_argument, emit_json, ensure_compiled
from dashboard.commands._trace_args import add_trace_arguments, load_trace
from dashboard.core.types import SampledCurve
from dashboard.engine.mrc import default_capacities, exact_is_quick, in_passes, policy_mrc
from dashboard.engine.mrc_sampled import DEFAULT_RATE, MEASURED_MAX_ABS_ERROR, sampled_policy_mrc
from dashboard.engine.policies import policy_info, policy_names

NAME = "mrc"
HELP = (
    "hit ratio versus cache capacity (exact: LRU in one pass, FIFO in passes, LFU by heap-free replays, "
    "others by sweep or sampled with --approx)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """TRACE, --format, --block-tokens, --policy, --approx, --rate, --seed, --workers, --points, --capacities, --json, --db."""
    add_trace_arguments(parser)
    parser.add_argument(
        "--policy",
        default="lru",
        help=f"eviction policy: {', '.join(policy_names())} (LRU: exact in one pass; FIFO: exact in passes "
        "over groups of capacities; LFU: exact, a heap-free replay per capacity; others: one replay per "
        "capacity, or a sampled approximation with --approx)",
    )
    parser.add_argument(
        "--approx",
        action="store_true",
        help="policies but LRU, FIFO and LFU: replay a spatially sampled trace (whole prefix subtrees) through a cache "
        "scaled by the same rate at each capacity, instead of the whole trace (miniature simulation: about "
        "5-30x faster than the exact sweep on the bundled traces). APPROXIMATE: it prints the worst error "
        f"measured at the default rate, {min(MEASURED_MAX_ABS_ERROR.values()):.2f}-"
        f"{max(MEASURED_MAX_ABS_ERROR.values()):.2f} by policy (docs/whatif.md). Without it the curve is exact; "
        "LRU, FIFO and LFU are always exact",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=DEFAULT_RATE,
        help=f"with --approx: share of prefix subtrees sampled, in (0, 1] (default {DEFAULT_RATE})",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="with --approx: the sampling hash's seed (default 0)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="threads replaying an exact curve's capacities, or FIFO's chunks of them (default: one per "
        "usable core)",
    )
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
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if not 0.0 < args.rate <= 1.0:
        raise ValueError(f"--rate must be in (0, 1], got {args.rate}")
    policy_info(args.policy)
    given = _capacities(args.capacities) if args.capacities is not None else None
    trace = load_trace(args)
    ensure_compiled()
    caps = given if given is not None else default_capacities(trace.num_blocks, args.points)
    sampled = None
    if args.approx and not exact_is_quick(args.policy):
        # NOTE: one line before the work, which takes seconds at 100M accesses (no steps to count)
        print(
            f"mrc {args.policy}: miniature simulation of {args.rate * 100:g}% of the prefix subtrees (seed {args.seed}) …",
            file=sys.stderr,
        )
        sampled = sampled_policy_mrc(trace, args.policy, caps, rate=args.rate, seed=args.seed)
        curve = sampled.curve
    elif in_passes(args.policy):
        curve = policy_mrc(trace, args.policy, caps, num_threads=args.workers)
    else:
        # NOTE: a replay per capacity: minutes for the oracle on a 100M-access trace, seconds for LFU
        with tqdm(total=len(caps), desc=f"mrc {args.policy}", unit="capacity", file=sys.stderr) as bar:
            curve = policy_mrc(trace, args.policy, caps, num_threads=args.workers, on_replayed=bar.update)
    if args.json:
        extra = {} if sampled is None else {"approximation": approximation(sampled, trace.num_requests)}
        emit_json(curve.to_dict() | extra)
        return 0
    print(f"{'capacity_blocks':>16} {'block_hit_ratio':>16} {'token_hit_ratio':>16}")
    for c, b, t in zip(curve.capacity_blocks, curve.block_hit_ratio, curve.token_hit_ratio, strict=True):
        print(f"{c:>16,} {b:>16.6f} {t:>16.6f}")
    if sampled is not None:
        print(describe(sampled, trace.num_requests))
    return 0


def approximation(sampled: SampledCurve, num_requests: int) -> dict:
    """The `--approx --json` object's `approximation`: how it was sampled and its measured error."""
    return {
        "method": "spatial sampling of prefix subtrees (near the trunk: windows of time), LRU control variate"
        if not sampled.is_exact
        else "exact",
        "rate": sampled.rate,
        "seed": sampled.seed,
        "requests_sampled": sampled.num_requests_sampled,
        "requests": num_requests,
        "raised_capacities": sampled.raised_capacities,
        "windowed_capacities": sampled.windowed_capacities,
        "max_abs_error": sampled.max_abs_error,
        "label": sampled.label(),
    }


def describe(sampled: SampledCurve, num_requests: int) -> str:
    """One line under the table: the curve is approximate, how it was sampled, and what its bound means."""
    if sampled.is_exact:
        return f"{sampled.label()}: rate 1 keeps every request, so every capacity was replayed in full"
    bound = (
        "the bound is the worst error measured at this rate on the bundled traces, not a guarantee"
        if sampled.max_abs_error is not None
        else "no error was measured at this rate"
    )
    return (
        f"approximate: {sampled.label()}: {sampled.num_requests_sampled:,} of {num_requests:,} requests "
        f"replayed (seed {sampled.seed}){_near_trunk(sampled)}; {bound} (docs/whatif.md); drop --approx for the "
        "exact sweep"
    )


def _near_trunk(sampled: SampledCurve) -> str:
    """'; of the capacities within reach of the shared prefix blocks, N at a higher rate and M
    replayed whole over windows of time' or ''."""
    ways = []
    if sampled.raised_capacities:
        ways.append(f"{sampled.raised_capacities} at a higher rate")
    if sampled.windowed_capacities:
        ways.append(f"{sampled.windowed_capacities} replayed whole over windows of time")
    if not ways:
        return ""
    return f"; of the capacities within reach of the {sampled.num_trunk_blocks:,} shared prefix blocks, {' and '.join(ways)}"


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
