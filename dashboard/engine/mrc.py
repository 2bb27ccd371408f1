"""Exact LRU miss-ratio curves in one pass, with DESIGN.md's prefix semantics.

A block's LRU stack distance is its recency rank before the request looks it up (1 = most
recent). Requests touch their blocks tail first, so a block's parent is always at least as
recent as the block: at capacity C a request's prefix hit is the number of leading blocks whose
running-maximum stack distance is ≤ C. Update order does not depend on C, so one pass over the
trace gives every capacity at once (the LRU inclusion property).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from dashboard.core.config import usable_cores
from dashboard.core.types import MissRatioCurve, Trace
from dashboard.engine.mrc_fifo import fifo_hits, fits
from dashboard.engine.replay import replay_single_cache
from dashboard.engine.stack_distance import max_request_blocks, new_marks, request_distances, touch_request


# NOTE: nogil: a sampled curve's exact LRU control runs beside its replays (mrc_sampled.py)
@njit(cache=True, nogil=True)
def stack_distance_histograms(
    offsets: np.ndarray,
    block_ids: np.ndarray,
    input_tokens: np.ndarray,
    block_tokens: int,
    num_blocks: int,
    counted: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per running-max stack distance d (1..num_blocks): blocks and tokens of the counted requests
    that hit iff C ≥ d (every request still touches the cache)."""
    bits, tree = new_marks(block_ids.shape[0])
    last_time = np.full(num_blocks, -1, np.int64)
    block_hist = np.zeros(num_blocks + 1, np.int64)
    token_hist = np.zeros(num_blocks + 1, np.int64)
    running = np.zeros(max_request_blocks(offsets), np.int64)
    num_marked, now = 0, -1
    for r in range(offsets.shape[0] - 1):
        lo, hi = offsets[r], offsets[r + 1]
        blocks = block_ids[lo:hi]
        seen = request_distances(blocks, last_time, bits, tree, num_marked, running) if counted[r] else 0
        for k in range(seen):
            block_hist[running[k]] += 1
            token_hist[running[k]] += min((k + 1) * block_tokens, input_tokens[r]) - min(
                k * block_tokens, input_tokens[r]
            )
        num_marked, now = touch_request(blocks, last_time, bits, tree, num_marked, now)
    return block_hist, token_hist


REFERENCE_FRACTIONS = (0.01, 0.05, 0.10, 0.25, 0.50, 1.0)  # the trace READMEs' reference points


def default_capacities(num_blocks: int, num_points: int = 50) -> np.ndarray:
    """Log-spaced capacities from ~0.1% of the unique blocks to all of them, plus 1/5/10/25/50/100%."""
    low = max(1, num_blocks // 1000)
    grid = np.geomspace(low, max(num_blocks, 1), num=num_points).round().astype(np.int64)
    reference = (np.array(REFERENCE_FRACTIONS) * num_blocks).astype(np.int64)
    return np.unique(np.concatenate([grid, reference[reference > 0]]))


def lru_mrc(
    trace: Trace,
    capacities: np.ndarray | None = None,
    num_points: int = 50,
    counted: np.ndarray | None = None,
) -> MissRatioCurve:
    """Block and token hit ratio of one LRU cache at every capacity, exactly, in one pass; over the
    counted requests only when counted (a bool per request) is given, every request still replayed."""
    caps = default_capacities(trace.num_blocks, num_points) if capacities is None else np.asarray(capacities)
    if caps.size and caps.min() < 0:
        raise ValueError("capacities must be non-negative")
    counted = np.ones(trace.num_requests, np.bool_) if counted is None else np.asarray(counted, np.bool_)
    if counted.shape != (trace.num_requests,):  # NOTE: the kernel reads it unchecked, one per request
        raise ValueError(
            f"counted needs one flag per request ({trace.num_requests}), got shape {counted.shape}"
        )
    block_hist, token_hist = stack_distance_histograms(
        trace.offsets, trace.block_ids, trace.input_tokens, trace.block_tokens, trace.num_blocks, counted
    )
    index = np.minimum(caps, trace.num_blocks).astype(np.int64)
    block_hits = np.cumsum(block_hist)[index]
    token_hits = np.cumsum(token_hist)[index]
    num_accesses = max(int(np.diff(trace.offsets)[counted].sum()), 1)
    num_tokens = max(int(trace.input_tokens[counted].sum()), 1)
    return MissRatioCurve(
        capacity_blocks=caps.astype(np.int64),
        block_hit_ratio=block_hits / num_accesses,
        token_hit_ratio=token_hits / num_tokens,
    )


def curve_from_hits(
    trace: Trace, capacities: np.ndarray, hits_per_capacity: list[np.ndarray]
) -> MissRatioCurve:
    """A MissRatioCurve from per-request prefix-hit block counts, one array per capacity."""
    block = [np.sum(h, dtype=np.int64) for h in hits_per_capacity]
    token = [
        np.minimum(h.astype(np.int64) * trace.block_tokens, trace.input_tokens).sum()
        for h in hits_per_capacity
    ]
    return curve_from_totals(trace, capacities, np.array(block, np.int64), np.array(token, np.int64))


def curve_from_totals(
    trace: Trace, capacities: np.ndarray, block_hits: np.ndarray, token_hits: np.ndarray
) -> MissRatioCurve:
    """A MissRatioCurve from the prefix-hit blocks and tokens summed over every request, per capacity."""
    return MissRatioCurve(
        capacity_blocks=np.asarray(capacities, np.int64),
        block_hit_ratio=block_hits / max(trace.num_block_accesses, 1),
        token_hit_ratio=token_hits / max(int(trace.input_tokens.sum()), 1),
    )


def policy_mrc(
    trace: Trace,
    policy: str = "lru",
    capacities: np.ndarray | None = None,
    num_points: int = 50,
    num_threads: int | None = None,
    on_replayed: Callable[[], None] | None = None,
) -> MissRatioCurve:
    """Hit-ratio curve of any policy, exactly: LRU's one pass, FIFO's passes over groups of capacities
    (mrc_fifo.py), else one single-cache replay per capacity (on num_threads threads, default one per
    usable core: replay_each, calling on_replayed as each capacity's replay ends)."""
    if policy == "lru":
        return lru_mrc(trace, capacities, num_points)
    caps = default_capacities(trace.num_blocks, num_points) if capacities is None else np.asarray(capacities)
    if caps.size and caps.min() < 0:
        raise ValueError("capacities must be non-negative")
    passes = fifo_hits(trace, caps, num_threads) if policy == "fifo" and fits(trace) else None
    if passes is not None:
        return curve_from_totals(trace, caps, passes.block_hits, passes.token_hits)
    return curve_from_hits(trace, caps, replay_each(trace, caps, policy, num_threads, on_replayed))


def in_passes(policy: str) -> bool:
    """Whether policy's exact curve comes from passes serving many capacities each (LRU: all in one;
    FIFO: 32 a pass), not from a replay per capacity. (A trace too long for FIFO's int32 stamps, over
    2 billion accesses, or holding over 4 million blocks between their first and last reads, gets its
    sweep: exact, slower.)"""
    return policy in ("lru", "fifo")


def exact_is_quick(policy: str) -> bool:
    """Whether policy's exact curve is quick enough that nobody needs a sampled one: LRU's and FIFO's
    passes, and LFU's heap-free replay per capacity (policies/lfu.py: 9-10 s for 55 capacities at 100M
    accesses, where the heap's sweep took 287-293 s and a sampled curve was 0.02-0.03 off; a trace of 2^30
    accesses or more replays LFU on its heap: exact, slower)."""
    return in_passes(policy) or policy == "lfu"


def replay_each(
    trace: Trace,
    capacities: np.ndarray,
    policy: str,
    num_threads: int | None = None,
    on_replayed: Callable[[], None] | None = None,
) -> list[np.ndarray]:
    """replay_single_cache at each capacity, in order, on num_threads threads (default one per usable
    core), calling on_replayed (from the replay's thread) as each ends.

    The replay kernels release the GIL, so an exact curve of a policy without LRU's one pass
    takes about 1/cores of its time; each replay has its own cache state, so the hits are the
    same as one after another.
    """
    caps = [int(c) for c in capacities]
    workers = min(len(caps), num_threads or usable_cores())

    def one(capacity: int) -> np.ndarray:
        hits = replay_single_cache(trace, capacity, policy)
        if on_replayed is not None:
            on_replayed()
        return hits

    if workers <= 1:
        return [one(c) for c in caps]
    with ThreadPoolExecutor(workers, thread_name_prefix="kvscope-replay") as pool:
        return list(pool.map(one, caps))
