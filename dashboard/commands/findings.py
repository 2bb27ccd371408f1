"""kvscope findings: why the hit rate or TTFT moved — change points with their ranked evidence."""

from __future__ import annotations

import argparse

from dashboard.commands._common import add_db_argument, db_path, emit_json
from dashboard.services.collector import parse_duration
from dashboard.services.findings import DEFAULT_STEP_S, findings_for_path

NAME = "findings"
HELP = "find where the cluster hit rate or TTFT p99 changed, and what else changed then"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--db, --since, --step, --json."""
    add_db_argument(parser)
    parser.add_argument(
        "--since", default="6h", help="how far back from the store's last sample (default 6h)"
    )
    parser.add_argument(
        "--step", default=f"{DEFAULT_STEP_S:g}s", help=f"window per point (default {DEFAULT_STEP_S:g}s)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Print each finding: its time range, what moved, and its evidence, most likely cause first."""
    found = findings_for_path(db_path(args), parse_duration(args.since), parse_duration(args.step))
    if args.json:
        emit_json({"findings": [f.as_dict() for f in found]})
        return 0
    if not found:
        print("no findings: the hit rate and TTFT p99 held steady and no pod restarted")
    for f in found:
        print(
            f"{f.window_start:%Y-%m-%d %H:%M} → {f.detected_ts:%H:%M}  change at {f.change_ts:%H:%M}: {f.summary}"
        )
        for e in f.evidence:
            print(f"    {e.score:4.2f}  {e.cause:<11} {e.text}")
        if not f.evidence:
            print("    no evidence in the window (unexplained)")
    return 0
