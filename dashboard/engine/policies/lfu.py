"""LFU with LRU tie-break: evict the block with the fewest touches since it entered this cache.

Eviction order: smallest touch count first; among equal counts the least recently touched
(smallest access tick). Structure: lazy min-heap on (k1 = count, k2 = tick of last touch).
A block's count restarts at 1 each time it (re-)enters the cache, demotions included.
"""

from __future__ import annotations

from numba import njit

from dashboard.engine.policies.state import MAIN, CacheState, heap_pop_live, heap_push

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
