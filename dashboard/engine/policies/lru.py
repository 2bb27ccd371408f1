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
    """Fast path: per-request prefix hits of one LRU cache (one intrusive list, sentinel num_blocks)."""
    n = offsets.shape[0] - 1
    hits = np.zeros(n, np.int32)
    s = num_blocks
    # NOTE: links[2b] = prev, links[2b+1] = next, side by side so one cache line holds both;
    # prev = -1 marks an absent block (no separate presence array).
    links = np.full(2 * (num_blocks + 1), -1, np.int32)
    links[2 * s] = s
    links[2 * s + 1] = s
    size = 0
    for i in range(n):
        lo, hi = offsets[i], offsets[i + 1]
        h = 0
        while lo + h < hi and links[2 * block_ids[lo + h]] >= 0:
            h += 1
        hits[i] = h
        for k in range(hi - 1, lo - 1, -1):  # tail first, so the head ends most recent
            size += _touch(links, s, block_ids[k])
            if size > capacity:
                _evict_oldest(links, s)
                size -= 1
    return hits


@njit(inline="always")
def _touch(links: np.ndarray, s: int, b: int) -> int:
    """Move b to the front (sentinel s's next); 1 if b was absent (an insert), else 0."""
    prev = links[2 * b]
    if prev == s:
        return 0
    if prev >= 0:
        after = links[2 * b + 1]
        links[2 * prev + 1] = after
        links[2 * after] = prev
    first = links[2 * s + 1]
    links[2 * s + 1] = b
    links[2 * b] = s
    links[2 * b + 1] = first
    links[2 * first] = b
    return 1 if prev < 0 else 0


@njit(inline="always")
def _evict_oldest(links: np.ndarray, s: int) -> None:
    victim = links[2 * s]
    before = links[2 * victim]
    links[2 * before + 1] = s
    links[2 * s] = before
    links[2 * victim] = -1
