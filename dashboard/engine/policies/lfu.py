"""LFU with LRU tie-break: evict the block with the fewest touches since it entered this cache.

Eviction order: smallest touch count first; among equal counts the least recently touched
(smallest access tick). Structure: lazy min-heap on (k1 = count, k2 = tick of last touch).
A block's count restarts at 1 each time it (re-)enters the cache, demotions included.

One cache replayed alone (replay_lfu_single: every sweep, curve and capacity search) needs no
heap. A replay inserts an absent block with one touch *before* it evicts (single_cache.py), so
the victim always has one touch: the block just inserted has one, and no block has fewer. A block
touched again while resident therefore stays for good, and the blocks touched once, each touched
only when it entered, leave in the order they entered. The cache is a set of kept blocks, which
only grows, beside a FIFO queue of blocks touched once in the rest of its slots.

There each block keeps one number: NEVER (absent); its stamp, the number of its insertion, while
queued (resident iff past the queue's floor, the latest stamp evicted); or its stamp + KEPT. A
block kept from the queue leaves a hole in it, so an eviction moves the floor on to the next stamp
that is no hole: a flag per stamp in a ring of at least 2C + 2 (past the floor are at most C queued
stamps and C kept ones). One number per block and O(1) amortized per access, where the heap's replay
pushes an entry per touch: about 30× faster a replay of the 100M-access scale trace, the same hits
(tests/engine/test_lfu_single.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.engine.policies.state import MAIN, CacheState, heap_pop_live, heap_push

NEVER = -1  # a block never inserted: at or below every floor
# NOTE: added to a kept block's stamp; stamps are int32 (0.38-0.46 s a replay at 100M accesses against
# int64's 0.49-0.58, both with the ring taken modulo), so a trace of KEPT accesses or more is replayed with the heap instead
KEPT = 1 << 30

POLICY_ID = 2
NAME = "lfu"
DESCRIPTION = "least frequently used since entering the cache; ties by least recently used"


@njit(cache=True, _nrt=False)
def hit(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Count the touch and record its tick."""
    st.k1[c, b] += 1.0
    st.k2[c, b] = tick
    heap_push(st, c, b)


@njit(cache=True, _nrt=False)
def insert(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Add an absent block with count 1."""
    st.where[b, c] = 1
    st.lsize[c, MAIN] += 1
    st.k1[c, b] = 1.0
    st.k2[c, b] = tick
    heap_push(st, c, b)


@njit(cache=True, _nrt=False)
def evict(st: CacheState, c: int) -> int:
    """Remove and return the least frequently (then least recently) used block."""
    b = heap_pop_live(st, c)
    st.where[b, c] = 0
    st.lsize[c, MAIN] -= 1
    return b


@njit(cache=True, nogil=True)  # NOTE: nogil: curves replay capacities on threads
def replay_lfu_single(
    offsets: np.ndarray, block_ids: np.ndarray, num_blocks: int, capacity: int
) -> np.ndarray:
    """Per-request prefix-hit block counts (int32 [n]) of one LFU cache of capacity blocks (the trace
    must hold fewer than KEPT block accesses)."""
    # NOTE: a cache holding every block never evicts, whatever its capacity: the ring stays small
    capacity = min(capacity, num_blocks)
    stamps = np.full(num_blocks, NEVER, np.int32)
    # NOTE: a power of two, indexed by a mask: a replay at 100M accesses took 0.25-0.28 s, against
    # 0.36-0.41 s taking each stamp modulo 2C + 2 (a division per insertion, hole and eviction)
    ring_size = 1
    while ring_size < 2 * capacity + 2:
        ring_size *= 2
    mask = ring_size - 1
    is_hole = np.zeros(ring_size, np.bool_)
    last, floor, size = -1, -1, 0  # the latest stamp, the latest evicted one, the blocks resident
    num_requests = offsets.shape[0] - 1
    hits = np.zeros(num_requests, np.int32)
    for r in range(num_requests):
        lo, hi = offsets[r], offsets[r + 1]
        h = 0
        while lo + h < hi and stamps[block_ids[lo + h]] > floor:  # NOTE: kept stamps are past any floor
            h += 1
        hits[r] = h
        for a in range(hi - 1, lo - 1, -1):
            b = block_ids[a]
            stamp = stamps[b]
            if stamp >= KEPT:
                continue
            if stamp > floor:  # queued, touched again: kept for good, a hole in the queue
                stamps[b] = stamp + np.int32(KEPT)
                is_hole[stamp & mask] = True
                continue
            last += 1
            stamps[b] = np.int32(last)
            is_hole[last & mask] = False
            size += 1
            if size > capacity:  # NOTE: the queue holds the block just inserted, so the loop ends
                floor += 1
                while is_hole[floor & mask]:
                    floor += 1
                size -= 1
    return hits
