"""LRU: evict the least recently touched block.

Eviction order: least recently used first. A request touches its blocks tail first, so its head
block ends up most recent (vLLM frees a finished request's blocks in reverse order). No ties:
touches are totally ordered. Structure: the MAIN intrusive list, most recent at the front.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.engine.policies.state import MAIN, CacheState, list_oldest, list_push_front, list_unlink

POLICY_ID = 0
NAME = "lru"
DESCRIPTION = "least recently used; a request touches its blocks tail first so the head is most recent"


@njit(cache=True, _nrt=False)
def hit(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Move a resident block to the most recent end."""
    list_unlink(st, c, b, MAIN)
    list_push_front(st, c, b, MAIN)


@njit(cache=True, _nrt=False)
def insert(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Add an absent block as most recent."""
    st.where[c, b] = 1
    list_push_front(st, c, b, MAIN)


@njit(cache=True, _nrt=False)
def evict(st: CacheState, c: int) -> int:
    """Remove and return the least recently used block."""
    b = list_oldest(st, c, MAIN)
    list_unlink(st, c, b, MAIN)
    st.where[c, b] = 0
    return b


@njit(cache=True)
def replay_lru_single(offsets: np.ndarray, block_ids: np.ndarray, num_blocks: int, capacity: int) -> np.ndarray:
    """Fast path: per-request prefix hits of one LRU cache (1-D prev/next arrays, sentinel num_blocks)."""
    n = offsets.shape[0] - 1
    hits = np.zeros(n, np.int32)
    s = num_blocks
    prev = np.empty(num_blocks + 1, np.int32)
    nxt = np.empty(num_blocks + 1, np.int32)
    present = np.zeros(num_blocks, np.bool_)
    prev[s] = s
    nxt[s] = s
    size = 0
    for i in range(n):
        lo, hi = offsets[i], offsets[i + 1]
        h = 0
        while lo + h < hi and present[block_ids[lo + h]]:
            h += 1
        hits[i] = h
        for k in range(hi - 1, lo - 1, -1):
            b = block_ids[k]
            if present[b]:
                nxt[prev[b]] = nxt[b]
                prev[nxt[b]] = prev[b]
            else:
                present[b] = True
                size += 1
            first = nxt[s]
            nxt[s] = b
            prev[b] = s
            nxt[b] = first
            prev[first] = b
            if size > capacity:
                victim = prev[s]
                nxt[prev[victim]] = s
                prev[s] = prev[victim]
                present[victim] = False
                size -= 1
    return hits
