"""Oracle (REFERENCE CEILING, not a deployable policy): evict the block whose next use is farthest.

Eviction order: farthest next use first (blocks never used again before all others); ties:
deeper block first (larger position in its prefix chain), then larger block id. It reads the
future of the trace, so it is only a reference; for one cache it is the classic Belady choice,
which is strong but not a proven optimum for prefix hits. In a cluster the next use is the next
request anywhere in the trace, not necessarily on the same pod.
Structure: lazy min-heap on (k1 = -next_use_request, k2 = tie key from dispatch.block_tie_keys).
"""

from __future__ import annotations

from numba import njit

from dashboard.engine.policies.state import MAIN, CacheState, heap_pop_live, heap_push

POLICY_ID = 4
NAME = "oracle"
DESCRIPTION = "reference ceiling: evicts the block used farthest in the future (reads the future)"


@njit(cache=True, _nrt=False)
def _set_key(st: CacheState, c: int, b: int, info: tuple) -> None:
    key = -float(info.next_use[b])
    if st.where[b, c] != 1 or st.k1[c, b] != key:
        st.where[b, c] = 1
        st.k1[c, b] = key
        st.k2[c, b] = info.tie[b]
        heap_push(st, c, b)


@njit(cache=True, _nrt=False)
def hit(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Refresh the block's next use."""
    _set_key(st, c, b, info)


@njit(cache=True, _nrt=False)
def insert(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Add an absent block keyed by its next use."""
    st.lsize[c, MAIN] += 1
    _set_key(st, c, b, info)


@njit(cache=True, _nrt=False)
def evict(st: CacheState, c: int) -> int:
    """Remove and return the block used farthest in the future."""
    b = heap_pop_live(st, c)
    st.where[b, c] = 0
    st.lsize[c, MAIN] -= 1
    return b
