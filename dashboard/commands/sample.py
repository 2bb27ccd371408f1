"""kvscope sample: regenerate the embedded sample dataset (deterministic for a seed)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dashboard.services.sample import write_sample

NAME = "sample"
HELP = "regenerate the sample dataset: 8 pods, 15 s scrapes, routing switch, restart and burst"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--out, --seed, --hours."""
    parser.add_argument(
        "--out", type=Path, default=Path("sample_data"), help="output folder (default sample_data)"
    )
    parser.add_argument("--seed", type=int, default=0, help="workload seed (default 0)")
    parser.add_argument("--hours", type=float, default=6.0, help="simulated hours (default 6)")


def run(args: argparse.Namespace) -> int:
    """Write metrics/requests/annotations.parquet into --out."""
    if not 0.25 <= args.hours <= 48:
        raise ValueError(f"--hours must be between 0.25 and 48, got {args.hours}")
    if args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {args.out}: is a file; give a folder for the three Parquet files")
    print(f"simulating {args.hours:g} h (seed {args.seed}) …", file=sys.stderr)
    sizes = write_sample(args.out, seed=args.seed, hours=args.hours)
    for name, size in sizes.items():
        print(f"{args.out / name}: {size / 1e6:.1f} MB")
    return 0
