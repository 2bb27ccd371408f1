"""An LRU list's moves with its ends (head = most recent, tail = oldest; s, the sentinel, when
empty) and size in the caller's registers rather than in `link[c, s]` and `lsize[c]`.

NOTE: the caller loads them with `ends`, moves, and writes them back with `store_ends` at the end
of a request: the state's arrays may alias as far as the compiler knows, so with the ends in
memory every store made the next move load them again (engine/top_lru.py, views.py); lru.py
splices a run with its ends in memory through `to_front` too. Only
`where` flags 0/1 are written: LRU's and the victim view's (state.py).
"""

from __future__ import annotations

from numba import njit

from dashboard.engine.policies.state import MAIN, NEXT, PREV, CacheState


@njit(cache=True, _nrt=False, inline="always")
def ends(st: CacheState, c: int, s: int) -> tuple:
    """(head, tail, size, capacity) of cache c's main list, for the loop's registers."""
    return st.link[c, s, NEXT], st.link[c, s, PREV], st.lsize[c, MAIN], st.cap[c]


@njit(cache=True, _nrt=False, inline="always")
def store_ends(st: CacheState, c: int, s: int, head: int, tail: int, size: int) -> None:
    """Write the ends and size kept in registers back to cache c's sentinel and list size."""
    st.link[c, s, NEXT], st.link[c, s, PREV], st.lsize[c, MAIN] = head, tail, size


@njit(cache=True, _nrt=False, inline="always")
def to_front(st: CacheState, c: int, s: int, top: int, bot: int, head: int, tail: int) -> tuple:
    """Move the resident run linked top … bot (one block when top == bot) to the most recent end,
    in its order (lru.hit, lru.hit_run); (head, tail)."""
    before = st.link[c, top, PREV]
    if before == s:  # already the most recent
        return head, tail
    after = st.link[c, bot, NEXT]
    st.link[c, before, NEXT] = after
    if after == s:
        tail = before
    else:
        st.link[c, after, PREV] = before
    st.link[c, top, PREV] = s
    st.link[c, bot, NEXT] = head
    st.link[c, head, PREV] = bot
    return top, tail


@njit(cache=True, _nrt=False, inline="always")
def push_front(st: CacheState, c: int, s: int, b: int, head: int, tail: int) -> tuple:
    """Insert absent block b as the most recent; (head, tail)."""
    st.where[b, c] = 1
    st.link[c, b, PREV] = s
    st.link[c, b, NEXT] = head
    if head == s:
        return b, b
    st.link[c, head, PREV] = b
    return b, tail


@njit(cache=True, _nrt=False, inline="always")
def unlink(st: CacheState, c: int, s: int, b: int, head: int, tail: int) -> tuple:
    """Remove resident block b from anywhere in the list; (head, tail)."""
    st.where[b, c] = 0
    p = st.link[c, b, PREV]
    n = st.link[c, b, NEXT]
    if p == s:
        head = n
    else:
        st.link[c, p, NEXT] = n
    if n == s:
        tail = p
    else:
        st.link[c, n, PREV] = p
    return head, tail


@njit(cache=True, _nrt=False, inline="always")
def pop_oldest(st: CacheState, c: int, s: int, head: int, tail: int) -> tuple:
    """Evict the oldest block; (it, head, tail)."""
    victim = tail
    tail = st.link[c, victim, PREV]
    st.where[victim, c] = 0
    if tail == s:
        return victim, s, tail
    st.link[c, tail, NEXT] = s
    return victim, head, tail
