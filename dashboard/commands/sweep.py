"""kvscope sweep TRACE --grid FILE: many replay configurations on both cores or a Ray cluster, stored for the UI."""

from __future__ import annotations

import argparse
import sys
import time

from tqdm import tqdm

from dashboard.commands._common import (
    add_db_argument,
    check_store_writable,
    db_path,
    emit_json,
    ensure_compiled,
)
from dashboard.commands._trace_args import add_trace_arguments, load_trace
from dashboard.engine.summary import ReplaySummary
from dashboard.services.sweep import check_requests, read_grid, save_sweep
from dashboard.services.sweep_executors import EXECUTORS, ExecutorOptions, open_runner
from dashboard.store.db import store_session

NAME = "sweep"
HELP = "replay a trace under every combination of a grid file's parameters (process pool or Ray, stored in the db)"
COLUMNS = (
    "pods",
    "router",
    "policy",
    "hbm",
    "cpu",
    "disk",
    "block_hit",
    "token_hit",
    "ttft_p50_s",
    "ttft_p99_s",
    "imbalance",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """TRACE, --grid, --executor, --address, --workers, --name, --db, --json."""
    add_trace_arguments(parser)
    parser.add_argument(
        "--grid", required=True, help="TOML or JSON file: parameter = [values] (see docs/whatif.md)"
    )
    parser.add_argument(
        "--executor",
        choices=list(EXECUTORS),
        default="local",
        help="where the configs run: local processes (default) or a Ray cluster (the ray extra)",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="with --executor ray: the Ray head's HOST:PORT (default: what ray.init() finds: "
        "$RAY_ADDRESS, else the cluster last started on this machine, else a new local Ray)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="local: worker processes (default 2); ray: configs in flight (default: every CPU of the cluster)",
    )
    parser.add_argument(
        "--name", default=None, help="sweep name in the store (default: the grid's name or file stem)"
    )
    parser.add_argument("--no-save", action="store_true", help="do not store the results")
    parser.add_argument("--json", action="store_true", help='print one JSON object {"configs": [...]}')
    add_db_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Run the grid, show progress on stderr, store and print the results."""
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    path = None if args.no_save else db_path(args)
    if path is not None:
        check_store_writable(path)  # NOTE: a bad --db fails before the sweep runs
    grid = read_grid(args.grid)
    trace = load_trace(args)
    # NOTE: every configuration is checked before compiling and before the progress bar starts,
    # so an error is one line.
    check_requests(grid.requests, trace.block_tokens, where=args.grid)
    ensure_compiled()
    started = time.perf_counter()
    results: dict[int, ReplaySummary] = {}
    # NOTE: the executor starts its workers or joins its cluster (or fails in one line) before the bar.
    with open_runner(args.executor, trace, ExecutorOptions(args.workers, args.address)) as runner:
        bar = tqdm(total=len(grid.requests), desc="sweep", unit="config", file=sys.stderr)
        for index, summary in runner.run(grid.requests):
            results[index] = summary
            bar.update(1)
        bar.close()
    summaries = [results[i] for i in range(len(grid.requests))]
    wall_s = time.perf_counter() - started
    if path is not None:
        with store_session(path) as store:
            save_sweep(store, args.name or grid.name, args.trace, summaries)
        print(
            f"kvscope sweep: saved {len(summaries)} configs as {args.name or grid.name!r} in {path}",
            file=sys.stderr,
        )
    if args.json:
        emit_json(
            {
                "name": args.name or grid.name,
                "executor": args.executor,
                "wall_s": wall_s,
                "configs": [s.to_dict() for s in summaries],
            }
        )
        return 0
    print(" ".join(f"{c:>12}" for c in COLUMNS))
    for s in summaries:
        print(" ".join(f"{v:>12}" for v in _row(s)))
    print(f"{len(summaries)} configs in {wall_s:.2f} s on {runner.where}", file=sys.stderr)
    return 0


def _row(s: ReplaySummary) -> list[str]:
    c = s.config
    return [
        str(c["num_pods"]),
        c["router"],
        c["policy"],
        f"{c['hbm_blocks']:,}",
        f"{c['cpu_blocks']:,}",
        f"{c['disk_blocks']:,}",
        f"{s.block_hit_ratio:.6f}",
        f"{s.token_hit_ratio:.6f}",
        f"{s.ttft_s['p50']:.3f}",
        f"{s.ttft_s['p99']:.3f}",
        f"{s.load_imbalance:.2f}",
    ]
