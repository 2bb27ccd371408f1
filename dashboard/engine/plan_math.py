"""What the capacity planner computes per request: prefix hits at any capacity, service time, queueing.

The planner reads a pooled cache of N pods as one LRU cache of N × per-pod blocks (what a
prefix-affine router such as llm-d's precise scorer approaches). Per access we keep the running
maximum LRU stack distance (engine/mrc.py's argument): at capacity C a request hits exactly its
leading blocks whose running maximum is ≤ C, so one pass answers every capacity.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.core.types import Trace
from dashboard.engine.latency import LatencyModel, prefill_seconds
from dashboard.engine.stack_distance import new_marks, request_distances, touch_request

NEVER = np.iinfo(np.int64).max  # distance of a block no capacity can hit (first use, or after a gap)


@njit(cache=True)
def _running_max_distances(offsets: np.ndarray, block_ids: np.ndarray, num_blocks: int) -> np.ndarray:
    """Per access: the running-max stack distance within its request (NEVER after the first unseen block)."""
    out = np.full(block_ids.shape[0], NEVER, np.int64)
    bits, tree = new_marks(block_ids.shape[0])
    last_time = np.full(num_blocks, -1, np.int64)
    num_marked, now = 0, -1
    for r in range(offsets.shape[0] - 1):
        lo, hi = offsets[r], offsets[r + 1]
        blocks = block_ids[lo:hi]
        request_distances(blocks, last_time, bits, tree, num_marked, out[lo:hi])
        num_marked, now = touch_request(blocks, last_time, bits, tree, num_marked, now)
    return out


@njit(cache=True)
def _hits_at(offsets: np.ndarray, distances: np.ndarray, capacity: float) -> np.ndarray:
    """Prefix-hit blocks of every request in one LRU cache of capacity blocks."""
    n = offsets.shape[0] - 1
    hits = np.zeros(n, np.int64)
    for r in range(n):
        lo, hi = offsets[r], offsets[r + 1]  # distances[lo:hi] is non-decreasing: binary search
        start = lo
        while lo < hi:
            mid = (lo + hi) // 2
            if distances[mid] <= capacity:
                lo = mid + 1
            else:
                hi = mid
        hits[r] = lo - start
    return hits


class HitOracle:
    """Prefix hits of every request of a trace at any pooled LRU capacity, after one pass."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.distances = _running_max_distances(trace.offsets, trace.block_ids, trace.num_blocks)
        self.total_tokens = max(int(trace.input_tokens.sum()), 1)

    def hit_tokens(self, capacity_blocks: float) -> np.ndarray:
        """Token hits per request: min(hit blocks × block_tokens, input tokens)."""
        hits = _hits_at(self.trace.offsets, self.distances, float(capacity_blocks))
        return np.minimum(hits * self.trace.block_tokens, self.trace.input_tokens)


def service_seconds(
    lat: LatencyModel, input_tokens: np.ndarray, gpu_hit: np.ndarray, cpu_hit: np.ndarray
) -> np.ndarray:
    """Pod time per request on an idle pod: CPU-tier load plus prefill (the cluster kernel's formula)."""
    uncached = (input_tokens - gpu_hit - cpu_hit).astype(np.float64)
    return cpu_hit * lat.cpu_load_s_per_token + prefill_seconds(
        lat.as_array(), uncached, input_tokens.astype(np.float64)
    )


def mg1_wait_s(service_s: np.ndarray, arrivals_per_s: float) -> tuple[float, float]:
    """(mean wait, utilization) of one FCFS server (Pollaczek-Khinchine); wait is inf when utilization ≥ 1."""
    rho = arrivals_per_s * float(service_s.mean()) if service_s.size else 0.0
    if rho >= 1.0:
        return float("inf"), rho
    return arrivals_per_s * float(np.mean(service_s**2)) / (2.0 * (1.0 - rho)), rho
