"""FIFO: evict the block that entered the cache earliest; hits do not reorder.

Eviction order: oldest insertion first. No ties (insertions are totally ordered; a request
inserts its absent blocks tail first). Structure: the MAIN intrusive list, newest at the front.
"""

from __future__ import annotations

from numba import njit

from dashboard.engine.policies.state import MAIN, CacheState, list_oldest, list_push_front, list_unlink

POLICY_ID = 1
NAME = "fifo"
DESCRIPTION = "first in, first out; hits do not change the order"


@njit(cache=True, _nrt=False)
def hit(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """A hit leaves FIFO order unchanged."""
    return


@njit(cache=True, _nrt=False)
def insert(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Add an absent block as newest."""
    st.where[b, c] = 1
    list_push_front(st, c, b, MAIN)


@njit(cache=True, _nrt=False)
def evict(st: CacheState, c: int) -> int:
    """Remove and return the oldest inserted block."""
    b = list_oldest(st, c, MAIN)
    list_unlink(st, c, b, MAIN)
    st.where[b, c] = 0
    return b
