"""LRU: evict the least recently touched block.

Eviction order: least recently used first. A request touches its blocks tail first, so its head
block ends up most recent (vLLM frees a finished request's blocks in reverse order). No ties:
touches are totally ordered. Structure: the MAIN intrusive list, most recent at the front.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.engine.policies.lru_registers import to_front
from dashboard.engine.policies.state import (
    MAIN,
    NEXT,
    NUM_LISTS,
    PREV,
    CacheState,
    list_oldest,
    list_push_front,
    list_unlink,
)

POLICY_ID = 0
NAME = "lru"
DESCRIPTION = "least recently used; a request touches its blocks tail first so the head is most recent"


@njit(cache=True, _nrt=False, inline="always")
def hit(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Move a resident block to the most recent end."""
    list_unlink(st, c, b, MAIN)
    list_push_front(st, c, b, MAIN)


@njit(cache=True, _nrt=False, inline="always")
def run_start(st: CacheState, c: int, blocks: np.ndarray, k: int) -> int:
    """Smallest j ≤ k with blocks[j..k] linked in that order, each just ahead of the next in recency.

    blocks[k] is resident. Touching blocks[k], then blocks[k-1], … down to blocks[j] only moves
    them, in the order they already have, to the front: hit_run does that in one splice.
    """
    j = k
    while j > 0 and st.link[c, blocks[j], PREV] == blocks[j - 1]:
        j -= 1
    return j


@njit(cache=True, _nrt=False, inline="always")
def hit_run(st: CacheState, c: int, blocks: np.ndarray, j: int, k: int) -> None:
    """Touch blocks[k] down to blocks[j] (a run from run_start): splice the run to the front at once."""
    s = st.link.shape[1] - NUM_LISTS + MAIN
    head, tail = to_front(st, c, s, blocks[j], blocks[k], st.link[c, s, NEXT], st.link[c, s, PREV])
    st.link[c, s, NEXT], st.link[c, s, PREV] = head, tail


@njit(cache=True, _nrt=False, inline="always")
def insert(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Add an absent block as most recent."""
    st.where[b, c] = 1
    list_push_front(st, c, b, MAIN)


@njit(cache=True, _nrt=False, inline="always")
def evict(st: CacheState, c: int) -> int:
    """Remove and return the least recently used block."""
    b = list_oldest(st, c, MAIN)
    list_unlink(st, c, b, MAIN)
    st.where[b, c] = 0
    return b


@njit(cache=True, nogil=True)  # NOTE: nogil: curves replay capacities on threads (mrc.replay_each)
def replay_lru_single(
    offsets: np.ndarray, block_ids: np.ndarray, num_blocks: int, capacity: int
) -> np.ndarray:
    """Fast path: per-request prefix hits of one LRU cache (one intrusive list, sentinel num_blocks)."""
    n = offsets.shape[0] - 1
    hits = np.zeros(n, np.int32)
    s = num_blocks
    # NOTE: links[2b] = prev, links[2b+1] = next, side by side so one cache line holds both;
    # prev = -1 marks an absent block. The sentinel's own ends stay in locals (head = most recent,
    # tail = oldest) so one touch does not wait on the last one through memory.
    links = np.full(2 * (num_blocks + 1), -1, np.int32)
    head, tail, size = s, s, 0
    for i in range(n):
        lo, hi = offsets[i], offsets[i + 1]
        h = 0
        while lo + h < hi and links[2 * block_ids[lo + h]] >= 0:
            h += 1
        hits[i] = h
        k = hi - 1  # tail first, so the head ends most recent
        while k >= lo:
            bot = block_ids[k]
            if links[2 * bot] < 0:  # absent: insert as most recent, evict the oldest when over capacity
                links[2 * bot] = s
                links[2 * bot + 1] = head
                if head == s:
                    tail = bot
                else:
                    links[2 * head] = bot
                head = bot
                size += 1
                if size > capacity:
                    victim = tail
                    tail = links[2 * victim]
                    links[2 * victim] = -1
                    size -= 1
                    if tail == s:
                        head = s
                    else:
                        links[2 * tail + 1] = s
                k -= 1
                continue
            # Resident: touching it and the run of this request's blocks linked just before it, one
            # by one, only moves them (no insert, no eviction), so splice the run to the front at once.
            j = k
            while j > lo and links[2 * block_ids[j]] == block_ids[j - 1]:
                j -= 1
            top = block_ids[j]
            before = links[2 * top]
            if before != s:
                after = links[2 * bot + 1]
                links[2 * before + 1] = after
                if after == s:
                    tail = before
                else:
                    links[2 * after] = before
                links[2 * top] = s
                links[2 * bot + 1] = head
                links[2 * head] = bot
                head = top
            k = j - 1
    return hits
