"""ARC (Megiddo & Modha, FAST 2003): recency list T1, frequency list T2, ghost lists B1 and B2.

Order: a new block enters T1; a hit in T1 or T2 moves it to T2's front; a ghost hit in B1 raises
the target size p of T1 by max(|B2| // |B1|, 1) (B2: lowers it by max(|B1| // |B2|, 1)) and the
block re-enters at T2's front. Eviction (ARC's REPLACE, decided before the block is added):
T1's oldest goes to B1 if |T1| ≥ 1 and (|T1| > p or (the block came from B2 and |T1| = p)),
otherwise T2's oldest goes to B2. Directory bounds as in the paper: for a new block, when
|T1| + |B1| ≥ c the oldest of B1 is forgotten (or, if B1 is empty, T1's oldest is evicted without
a ghost), else when all four lists hold ≥ 2c keys the oldest of B2 is forgotten. No ties: all
four are FIFO-ordered lists. Structure: T2 = MAIN, T1 = SMALL, B1 = GHOST, B2 = GHOST2 lists;
param[c, 0] = p, param[c, 1] = the victim decided at the last insertion (0 T1→B1, 1 T2→B2, 2 T1 dropped).
"""

from __future__ import annotations

from numba import njit

from dashboard.engine.policies.state import (
    GHOST,
    GHOST2,
    MAIN,
    SMALL,
    CacheState,
    list_oldest,
    list_push_front,
    list_unlink,
)

POLICY_ID = 6
NAME = "arc"
DESCRIPTION = "ARC: adaptive split between a recency and a frequency list, steered by two ghost lists"
FROM_T1, FROM_T2, DROP_T1 = 0, 1, 2


@njit(cache=True, _nrt=False)
def hit(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Move a resident block to the front of T2."""
    if st.where[b, c] == 2:
        list_unlink(st, c, b, SMALL)
        st.where[b, c] = 1
    else:
        list_unlink(st, c, b, MAIN)
    list_push_front(st, c, b, MAIN)


@njit(cache=True, _nrt=False)
def _forget_oldest(st: CacheState, c: int, lst: int) -> None:
    old = list_oldest(st, c, lst)
    list_unlink(st, c, old, lst)
    st.where[old, c] = 0


@njit(cache=True, _nrt=False)
def _replace_choice(st: CacheState, c: int, is_from_b2: bool) -> int:
    t1, p = st.lsize[c, SMALL], st.param[c, 0]
    if t1 >= 1 and (t1 > p or (is_from_b2 and t1 == p)):
        return FROM_T1
    return FROM_T2


@njit(cache=True, _nrt=False)
def insert(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Adapt p on a ghost hit, trim the ghost directory, decide the victim, then add the block."""
    cap, w = st.cap[c], st.where[b, c]
    n_b1, n_b2 = st.lsize[c, GHOST], st.lsize[c, GHOST2]
    if w == 3 or w == 4:
        if w == 3:
            st.param[c, 0] = min(cap, st.param[c, 0] + max(n_b2 // n_b1, 1))
            list_unlink(st, c, b, GHOST)
        else:
            st.param[c, 0] = max(0, st.param[c, 0] - max(n_b1 // n_b2, 1))
            list_unlink(st, c, b, GHOST2)
        st.param[c, 1] = _replace_choice(st, c, w == 4)
        st.where[b, c] = 1
        list_push_front(st, c, b, MAIN)
        return
    n_t1, n_t2 = st.lsize[c, SMALL], st.lsize[c, MAIN]
    if n_t1 + n_b1 >= cap:
        if n_b1 > 0:
            _forget_oldest(st, c, GHOST)
            st.param[c, 1] = _replace_choice(st, c, False)
        else:
            st.param[c, 1] = DROP_T1
    else:
        if n_t1 + n_t2 + n_b1 + n_b2 >= 2 * cap and n_b2 > 0:
            _forget_oldest(st, c, GHOST2)
        st.param[c, 1] = _replace_choice(st, c, False)
    st.where[b, c] = 2
    list_push_front(st, c, b, SMALL)


@njit(cache=True, _nrt=False)
def evict(st: CacheState, c: int) -> int:
    """Remove and return the victim decided at the last insertion (T1's or T2's oldest)."""
    choice = st.param[c, 1]
    lst = MAIN if choice == FROM_T2 else SMALL
    b = list_oldest(st, c, lst)
    list_unlink(st, c, b, lst)
    if choice == FROM_T1:
        st.where[b, c] = 3
        list_push_front(st, c, b, GHOST)
    elif choice == FROM_T2:
        st.where[b, c] = 4
        list_push_front(st, c, b, GHOST2)
    else:
        st.where[b, c] = 0
    return b
