"""Capacity planning from replays: the cache a hit-ratio target needs, and space saved versus LRU.

"Cache-space reduction versus LRU at equal hit ratio" is the LPC paper's headline measure (Yang
et al., NeurIPS 2025): take LRU's hit ratio h at capacity C_lru, find the smallest capacity C_p at
which policy P reaches h, and report 1 − C_p / C_lru.

Only LRU's (and the oracle's) hit ratio is sure to grow with capacity: FIFO shows Belady's anomaly
and S3-FIFO's curve dips too, so a bisection can step over the first capacity reaching a target.
The search here scans upward instead (capacity_search.py) and says how it searched.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from dashboard.core.types import Trace
from dashboard.engine.capacity_search import scan_smallest_capacity
from dashboard.engine.mrc import MissRatioCurve, lru_mrc
from dashboard.engine.replay import LearnedOptions, block_hit_ratio, replay_single_cache


@dataclass(frozen=True)
class SpaceReduction:
    """How much smaller a cache under `policy` can be than LRU's for the same block hit ratio."""

    policy: str
    lru_capacity_blocks: int
    lru_block_hit_ratio: float
    policy_capacity_blocks: int | None  # None: the policy never reaches LRU's ratio
    policy_block_hit_ratio: float  # at policy_capacity_blocks (or at all unique blocks when None)
    reduction: float | None  # 1 − policy_capacity_blocks / lru_capacity_blocks; negative = needs more
    num_replays: int
    search: str = ""  # how policy_capacity_blocks was found: the scan and where it was refined

    def to_dict(self) -> dict:
        """A JSON-ready dict."""
        return asdict(self)


def capacity_for_hit_ratio(curve: MissRatioCurve, target: float, metric: str = "block") -> float | None:
    """Smallest capacity (blocks, linearly interpolated between curve points) reaching target; None if never."""
    ratios = _ratios(curve, metric)
    caps = curve.capacity_blocks.astype(np.float64)
    reached = np.flatnonzero(ratios >= target)
    if reached.size == 0:
        return None
    i = int(reached[0])
    if i == 0:
        return float(caps[0])
    lo_c, hi_c, lo_r, hi_r = caps[i - 1], caps[i], ratios[i - 1], ratios[i]
    return float(lo_c + (hi_c - lo_c) * (target - lo_r) / (hi_r - lo_r))


def smallest_capacity(
    hit_ratio_at: Callable[[int], float], target: float, lo: int, hi: int
) -> tuple[int | None, int]:
    """Bisection: the smallest capacity in [lo, hi] whose hit ratio ≥ target, and how many evaluations it took.

    Only right when the ratio does not fall as capacity grows (LRU, the oracle); for any other
    policy use capacity_search.scan_smallest_capacity, which a dip cannot mislead the same way.
    """
    num_calls = 1
    if hit_ratio_at(hi) < target:
        return None, num_calls
    while lo < hi:
        mid = (lo + hi) // 2
        num_calls += 1
        if hit_ratio_at(mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return hi, num_calls


def capacity_for_policy(trace: Trace, target: float, policy: str = "lru") -> int | None:
    """Smallest single-cache capacity (blocks) at which policy's block hit ratio reaches target."""
    if policy == "lru":
        curve = lru_mrc(trace, np.arange(trace.num_blocks + 1))
        reached = np.flatnonzero(curve.block_hit_ratio >= target)
        return int(reached[0]) if reached.size else None
    found = scan_smallest_capacity(
        lambda c: block_hit_ratio(replay_single_cache(trace, c, policy), trace), target, 0, trace.num_blocks
    )
    return found.capacity_blocks


def space_reduction_vs_lru(
    trace: Trace, policy: str, lru_capacity_blocks: int, learned: LearnedOptions | None = None
) -> SpaceReduction:
    """LPC's measure for policy at LRU capacity lru_capacity_blocks, by an upward scan of single-cache replays."""
    if lru_capacity_blocks <= 0:
        raise ValueError(f"lru_capacity_blocks must be positive, got {lru_capacity_blocks}")
    lru_ratio = float(lru_mrc(trace, np.array([lru_capacity_blocks])).block_hit_ratio[0])
    seen: dict[int, float] = {}

    def ratio_at(capacity: int) -> float:
        if capacity not in seen:
            seen[capacity] = block_hit_ratio(replay_single_cache(trace, capacity, policy, learned), trace)
        return seen[capacity]

    # NOTE: search below C_lru first (the interesting case); only look above it if P falls short there.
    found = scan_smallest_capacity(ratio_at, lru_ratio, 0, lru_capacity_blocks)
    search = found.search
    if found.capacity_blocks is None:
        found = scan_smallest_capacity(ratio_at, lru_ratio, lru_capacity_blocks, max(trace.num_blocks, 1))
        search = f"{search}; then {found.search}"
    capacity = found.capacity_blocks
    reduction = None if capacity is None else 1.0 - capacity / lru_capacity_blocks
    at = capacity if capacity is not None else max(trace.num_blocks, 1)
    return SpaceReduction(
        policy, int(lru_capacity_blocks), lru_ratio, capacity, ratio_at(at), reduction, len(seen), search
    )


def reduction_from_curves(
    lru: MissRatioCurve, other: MissRatioCurve, lru_capacity_blocks: float
) -> float | None:
    """1 − C_p / C_lru read off two curves (interpolated); None if the other curve never reaches LRU's ratio."""
    caps = lru.capacity_blocks.astype(np.float64)
    target = float(np.interp(lru_capacity_blocks, caps, lru.block_hit_ratio))
    needed = capacity_for_hit_ratio(other, target)
    return None if needed is None else 1.0 - needed / lru_capacity_blocks


def _ratios(curve: MissRatioCurve, metric: str) -> np.ndarray:
    if metric not in ("block", "token"):
        raise ValueError(f"metric must be 'block' or 'token', got {metric!r}")
    return curve.block_hit_ratio if metric == "block" else curve.token_hit_ratio
