"""kvscope replay TRACE: what this workload gets under another policy, capacity, tier or router."""

from __future__ import annotations

import argparse
import sys

from dashboard.commands._common import (
    add_db_argument,
    check_store_writable,
    db_path,
    emit_json,
    ensure_compiled,
)
from dashboard.commands._trace_args import add_trace_arguments, load_trace
from dashboard.core import profiles
from dashboard.engine.policies import policy_names
from dashboard.engine.routers import router_names
from dashboard.engine.summary import ReplaySummary
from dashboard.services.replay import ReplayRequest, cluster_config, run_replay

NAME = "replay"
HELP = "replay a trace through pods, tiers, an eviction policy and a router"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Trace, cluster shape, capacities, output."""
    add_trace_arguments(parser)
    parser.add_argument("--pods", type=int, default=1, help="number of pods (default 1)")
    parser.add_argument("--router", default="round_robin", help=f"router: {', '.join(router_names())}")
    parser.add_argument(
        "--policy", default="lru", help=f"eviction policy of every tier: {', '.join(policy_names())}"
    )
    parser.add_argument("--hbm-blocks", type=int, default=None, help="HBM (GPU) capacity per pod, blocks")
    parser.add_argument(
        "--hardware", default=None, help=f"size HBM from a profile: {', '.join(profiles.HARDWARE)}"
    )
    parser.add_argument("--model", default=None, help=f"model profile: {', '.join(profiles.MODELS)}")
    parser.add_argument("--cpu-blocks", type=int, default=0, help="CPU DRAM tier per pod, blocks (0 = none)")
    parser.add_argument("--disk-blocks", type=int, default=0, help="disk tier per pod, blocks (0 = none)")
    parser.add_argument("--seed", type=int, default=0, help="seed for the random router")
    parser.add_argument(
        "--scorer-weights",
        default="2,2,3",
        metavar="Q,K,P",
        help="the EPP's queue, KV-usage and prefix scorer weights for the scoring routers (default 2,2,3)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_db_argument(parser)
    parser.add_argument(
        "--save",
        default=None,
        metavar="NAME",
        help="store the result in the --db store under NAME (replaces an earlier NAME)",
    )


def scorer_weights(text: str) -> tuple[float, float, float]:
    """'Q,K,P' as three non-negative weights, or a ValueError naming the flag."""
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 3 or any(not v >= 0 for v in values) or not any(values):
        raise ValueError(f"--scorer-weights {text!r}: expected three non-negative numbers Q,K,P, not all 0")
    return values


def run(args: argparse.Namespace) -> int:
    """Replay and print the summary."""
    for flag in ("hbm_blocks", "cpu_blocks", "disk_blocks"):
        value = getattr(args, flag)
        if value is not None and value < 0:
            raise ValueError(f"--{flag.replace('_', '-')} must be non-negative, got {value}")
    if args.save is not None and not args.save.strip():
        raise ValueError("--save needs a non-empty name")
    if args.save is not None:
        check_store_writable(db_path(args))  # NOTE: a bad --db is refused before the replay runs
    trace = load_trace(args)
    req = ReplayRequest(
        num_pods=args.pods,
        router=args.router,
        policy=args.policy,
        hbm_blocks=args.hbm_blocks,
        hardware=args.hardware,
        model=args.model,
        cpu_blocks=args.cpu_blocks,
        disk_blocks=args.disk_blocks,
        seed=args.seed,
        scorer_weights=scorer_weights(args.scorer_weights),
    )
    cluster_config(req, trace.block_tokens)  # NOTE: bad flags are refused before any compiling
    ensure_compiled()
    summary = run_replay(trace, req)
    if args.save is not None:
        _save(args, summary)
    if args.json:
        emit_json(summary.to_dict())
        return 0
    print(f"{summary.requests:,} requests, {summary.block_accesses:,} block accesses")
    print(f"block hit ratio {summary.block_hit_ratio:.6f}, token hit ratio {summary.token_hit_ratio:.6f}")
    for tier, hits in summary.tiers.items():
        print(f"  {tier:<5} {hits['block_hits']:>12,} blocks {hits['token_hits']:>14,} tokens")
    t = summary.ttft_s
    print(
        f"TTFT p50 {t['p50']:.3f} s, p90 {t['p90']:.3f} s, p99 {t['p99']:.3f} s; "
        f"load imbalance {summary.load_imbalance:.2f}; engine {summary.elapsed_s:.3f} s"
    )
    return 0


def _save(args: argparse.Namespace, summary: ReplaySummary) -> None:
    # NOTE: imported here, not at the top: DuckDB and pandas cost ~0.4 s of start-up that a
    # replay without --save does not need.
    from dashboard.services.saved_replays import save_replay
    from dashboard.store.db import store_session

    path = db_path(args)
    with store_session(path) as store:
        run_id = save_replay(store, args.save, args.trace, summary)
    # NOTE: on stderr, so --json output stays one object on stdout.
    print(f"kvscope replay: saved as {args.save!r} (run {run_id}) in {path}", file=sys.stderr)
