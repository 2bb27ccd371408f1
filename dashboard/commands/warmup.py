"""kvscope warmup: compile every replay and scanner kernel now, so no later command or page waits."""

from __future__ import annotations

import argparse

from dashboard.commands._common import compile_kernels
from dashboard.services.warmup import is_warm

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
    compile_kernels()
    return 0
