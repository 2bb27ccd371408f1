"""The smallest capacity whose hit ratio reaches a target, found by an upward scan, not a bisection.

A bisection assumes the hit ratio never falls as capacity grows. FIFO (Belady's anomaly) and
S3-FIFO break that: a midpoint that lands in a dip sends the search above an earlier capacity
that already reached the target. The scan walks a coarse grid upward to the first point that
reaches the target, then scans finely between it and the point before, level after level, down
to the exact block. A dip narrower than the coarse step can still hide an earlier crossing, so
the result says which grid it scanned and where it refined.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

NUM_COARSE = 32  # capacities in the first scan
NUM_FINE = 16  # capacities per refining scan (each shrinks the bracket about 17-fold)


@dataclass(frozen=True)
class CapacitySearch:
    """The capacity found (None: no scanned capacity reaches the target), what it cost and how."""

    capacity_blocks: int | None
    num_evaluations: int
    search: str  # e.g. "scan of 32 capacities over 0–18,279 blocks, refined between 17,100 and 17,689 …"


def scan_smallest_capacity(
    hit_ratio_at: Callable[[int], float],
    target: float,
    lo: int,
    hi: int,
    num_coarse: int = NUM_COARSE,
    num_fine: int = NUM_FINE,
) -> CapacitySearch:
    """Smallest capacity in [lo, hi] reaching target on an upward scan refined around the first crossing."""
    if lo > hi or lo < 0:
        raise ValueError(f"capacity range must satisfy 0 <= lo <= hi, got [{lo}, {hi}]")
    if num_coarse < 2 or num_fine < 1:
        raise ValueError(f"need at least 2 coarse and 1 fine capacity, got {num_coarse} and {num_fine}")
    grid = _grid(lo, hi, num_coarse)
    scan = f"scan of {grid.size} capacities over {lo:,}–{hi:,} blocks"
    first, num_calls = _first_reaching(hit_ratio_at, target, grid)
    if first is None:
        return CapacitySearch(None, num_calls, f"{scan}: none reaches the target")
    if first == 0:
        return CapacitySearch(int(grid[0]), num_calls, f"{scan}: the first, {lo:,}, reaches the target")
    below, above = int(grid[first - 1]), int(grid[first])
    num_refined = 0
    while above - below > 1:
        fine = _grid(below + 1, above - 1, num_fine)
        i, calls = _first_reaching(hit_ratio_at, target, fine)
        num_refined += calls
        if i is None:
            below = int(fine[-1])
        else:
            below, above = (below if i == 0 else int(fine[i - 1])), int(fine[i])
    if num_refined == 0:
        return CapacitySearch(above, num_calls, f"{scan}: {above:,} is the first to reach the target")
    where = f"refined between {int(grid[first - 1]):,} and {int(grid[first]):,} ({num_refined} more)"
    return CapacitySearch(above, num_calls + num_refined, f"{scan}, {where}")


def _grid(lo: int, hi: int, num_points: int) -> np.ndarray:
    """Up to num_points integers from lo to hi inclusive, evenly spaced (every integer when they fit)."""
    return np.unique(np.linspace(lo, hi, min(num_points, hi - lo + 1)).round().astype(np.int64))


def _first_reaching(
    hit_ratio_at: Callable[[int], float], target: float, grid: np.ndarray
) -> tuple[int | None, int]:
    """Index of the first grid capacity whose ratio reaches target (None if none), and calls made."""
    for i, capacity in enumerate(grid):
        if hit_ratio_at(int(capacity)) >= target:
            return i, i + 1
    return None, int(grid.size)
