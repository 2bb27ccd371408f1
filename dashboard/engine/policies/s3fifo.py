"""S3-FIFO (Yang et al., SOSP 2023): a small FIFO, a main FIFO and a ghost FIFO of keys.

Order: new blocks enter SMALL (10% of capacity, at least 1) unless remembered in GHOST, then they
enter MAIN. A hit raises the block's frequency (k2, capped at 3). To evict: if SMALL holds at
least its share (or MAIN is empty), take SMALL's oldest: frequency > 1 moves it to MAIN's front
and the scan goes on, otherwise it leaves to GHOST (evicted). Else take MAIN's oldest: frequency
> 0 is decremented and the block reinserted at MAIN's front, otherwise it is evicted. GHOST keeps
at most capacity − small share keys, oldest forgotten first. No ties: all three are FIFO lists.
"""

from __future__ import annotations

from numba import njit

from dashboard.engine.policies.state import (
    GHOST,
    MAIN,
    SMALL,
    CacheState,
    list_oldest,
    list_push_front,
    list_unlink,
)

POLICY_ID = 3
NAME = "s3fifo"
DESCRIPTION = "S3-FIFO: small probationary FIFO, main FIFO with reinsertion, ghost keys"


@njit(cache=True, _nrt=False)
def small_share(capacity: int) -> int:
    """Blocks reserved for the small queue."""
    return max(1, capacity // 10)


@njit(cache=True, _nrt=False)
def hit(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Raise the block's frequency, capped at 3."""
    st.k2[c, b] = min(st.k2[c, b] + 1, 3)


@njit(cache=True, _nrt=False)
def insert(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Add to MAIN if remembered in GHOST, else to SMALL; frequency 0."""
    st.k2[c, b] = 0
    if st.where[b, c] == 3:
        list_unlink(st, c, b, GHOST)
        st.where[b, c] = 1
        list_push_front(st, c, b, MAIN)
    else:
        st.where[b, c] = 2
        list_push_front(st, c, b, SMALL)


@njit(cache=True, _nrt=False)
def _to_ghost(st: CacheState, c: int, b: int) -> None:
    st.where[b, c] = 3
    list_push_front(st, c, b, GHOST)
    if st.lsize[c, GHOST] > max(st.cap[c] - small_share(st.cap[c]), 0):
        old = list_oldest(st, c, GHOST)
        list_unlink(st, c, old, GHOST)
        st.where[old, c] = 0


@njit(cache=True, _nrt=False)
def evict(st: CacheState, c: int) -> int:
    """Remove and return one resident block (see the module docstring for the order)."""
    if st.lsize[c, SMALL] >= small_share(st.cap[c]) or st.lsize[c, MAIN] == 0:
        while st.lsize[c, SMALL] > 0:
            b = list_oldest(st, c, SMALL)
            list_unlink(st, c, b, SMALL)
            if st.k2[c, b] > 1:
                st.where[b, c] = 1
                list_push_front(st, c, b, MAIN)
            else:
                _to_ghost(st, c, b)
                return b
    while True:
        b = list_oldest(st, c, MAIN)
        list_unlink(st, c, b, MAIN)
        if st.k2[c, b] > 0:
            st.k2[c, b] -= 1
            list_push_front(st, c, b, MAIN)
        else:
            st.where[b, c] = 0
            return b
