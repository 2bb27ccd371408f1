"""The prefix router's view of a pod: its own LRU cache, or its LRU top tier plus that tier's victims.

The view (llm-d's approximate prefix index) is an LRU cache of all the pod's tiers' capacity
that sees every block the pod serves, tail first. The pod's top tier, under LRU, sees exactly the
same accesses (a request's blocks, tail first: a touch if resident, else an insert), so by LRU's
inclusion property the view holds the top tier's blocks plus the next most recent ones, in one
recency order. Only that tail needs its own list: the blocks the top tier evicted, most recent
first, at most view capacity − top-tier capacity of them. A hit in the top tier then costs the
view nothing, and the view's cache row keeps just the victim list (its flags mark its members;
the top tier's own flags mark the rest).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.engine.policies.dispatch import contains, insert, run_start, touch_run
from dashboard.engine.policies.lru_registers import ends, pop_oldest, push_front, store_ends, unlink
from dashboard.engine.policies.state import MAIN, NUM_LISTS, CacheState


@njit(cache=True, _nrt=False, inline="always")
def plain_view_access(st: CacheState, view: int, blocks: np.ndarray, tick: int, info: tuple) -> None:
    """A view kept as its own LRU cache sees the request's blocks, tail first (runs in one splice)."""
    k = blocks.shape[0] - 1
    while k >= 0:
        if contains(st, view, blocks[k]):
            j = run_start(st, view, blocks, k)
            touch_run(st, view, blocks, j, k, tick, info)
            k = j - 1
        else:
            insert(st, view, blocks[k], tick, info)
            k -= 1


@njit(cache=True, _nrt=False, inline="always")
def follow_top_insert(st: CacheState, view: int, b: int, evicted: int) -> None:
    """The top tier inserted b and evicted `evicted` (or -1): follow_victims with the victim
    list's ends in memory (the generic path, cluster_kernel.insert_cascade)."""
    s = st.link.shape[1] - NUM_LISTS + MAIN
    head, tail, size, cap = ends(st, view, s)
    head, tail, size = follow_victims(st, view, s, b, evicted, head, tail, size, cap)
    store_ends(st, view, s, head, tail, size)


@njit(cache=True, _nrt=False, inline="always")
def follow_victims(
    st: CacheState, view: int, s: int, b: int, evicted: int, head: int, tail: int, size: int, cap: int
) -> tuple:
    """The top tier inserted b and evicted `evicted` (or -1): b leaves the victim list, `evicted`
    joins it at the front, and the oldest victim past the view's capacity leaves the view; the
    list's ends and size in the caller's registers (policies/lru_registers.py); (head, tail, size)."""
    if st.where[b, view] != 0:
        head, tail = unlink(st, view, s, b, head, tail)
        size -= 1
    if evicted >= 0:
        head, tail = push_front(st, view, s, evicted, head, tail)
        size += 1
        if size > cap:
            _, head, tail = pop_oldest(st, view, s, head, tail)
            size -= 1
    return head, tail, size


@njit(cache=True, _nrt=False, inline="always")
def victim_view_match(st: CacheState, view: int, top: int, blocks: np.ndarray) -> float:
    """Leading blocks in the view: in the top tier (LRU's flag 1) or on its victim list."""
    k = 0
    while k < blocks.shape[0] and (st.where[blocks[k], top] == 1 or st.where[blocks[k], view] != 0):
        k += 1
    return float(k)
