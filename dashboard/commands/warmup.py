"""kvscope warmup: compile every replay and scanner kernel now, so no later command or page waits."""

from __future__ import annotations

import argparse
import sys

from dashboard.services.warmup import is_warm, marker_path, warm_up

NAME = "warmup"
HELP = "compile the numba kernels ahead of use (make install runs it; later runs load them from disk)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--force: compile even when the marker says the kernels are current."""
    parser.add_argument(
        "--force", action="store_true", help="run every step even when the kernels are already compiled"
    )


def run(args: argparse.Namespace) -> int:
    """Compile each kernel family, printing progress on stderr (nothing to do when already warm)."""
    if is_warm() and not args.force:
        return 0

    def progress(i: int, count: int, name: str, elapsed_s: float) -> None:
        print(f"[{i + 1}/{count}] compiling {name} … ({elapsed_s:.0f} s so far)", file=sys.stderr, flush=True)

    seconds = warm_up(progress)
    print(f"kernels ready in {seconds:.1f} s (cached on disk; marker {marker_path().name})", file=sys.stderr)
    return 0
