"""A pod's only tier under LRU: the cluster kernel's update of it for one request, in registers.

serve_request's generic path reaches each cache through dispatch.py and keeps every list's ends
and size in memory, so each insert's stores make the next access load them again (the state's
arrays may alias, as far as the compiler knows). For a lone LRU tier, the commonest setup (one
pod, a pooled cache, any router's HBM-only scenario), the same moves as replay_lru_single makes
run with the list's ends and size in registers and are written back at the request's end. On
the conversation trace `run_replay` of one pod took 6.8 -> 4.3 ms, of 8 pods under the prefix
router with HBM only 14 -> 6-8 ms (docs/engine.md). The pure-Python twin of the cluster holds it to the
same hits (tests/engine/test_twins_property.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.engine.policies import lru
from dashboard.engine.policies.state import MAIN, NEXT, NUM_LISTS, PREV, CacheState


@njit(cache=True, _nrt=False, inline="always")
def serve_alone(st: CacheState, c: int, blocks: np.ndarray) -> None:
    """A request's update of cache c, a pod's only tier: blocks tail first, a resident run spliced
    to the front, an absent block inserted and the oldest evicted over capacity.

    A victim view of a one-tier pod (views.py) is its tier and no victims: nothing to tell it.
    """
    s = st.link.shape[1] - NUM_LISTS + MAIN
    head, tail, size, cap = st.link[c, s, NEXT], st.link[c, s, PREV], st.lsize[c, MAIN], st.cap[c]
    k = blocks.shape[0] - 1
    while k >= 0:
        bot = blocks[k]
        if st.where[bot, c] == 0:
            st.where[bot, c] = 1
            st.link[c, bot, PREV] = s
            st.link[c, bot, NEXT] = head
            if head == s:
                tail = bot
            else:
                st.link[c, head, PREV] = bot
            head, size = bot, size + 1
            if size > cap:
                victim = tail
                tail = st.link[c, victim, PREV]
                st.where[victim, c] = 0
                size -= 1
                if tail == s:
                    head = s
                else:
                    st.link[c, tail, NEXT] = s
            k -= 1
            continue
        j = lru.run_start(st, c, blocks, k)
        top = blocks[j]
        before = st.link[c, top, PREV]
        if before != s:
            after = st.link[c, bot, NEXT]
            st.link[c, before, NEXT] = after
            if after == s:
                tail = before
            else:
                st.link[c, after, PREV] = before
            st.link[c, top, PREV] = s
            st.link[c, bot, NEXT] = head
            st.link[c, head, PREV] = bot
            head = top
        k = j - 1
    st.link[c, s, NEXT], st.link[c, s, PREV], st.lsize[c, MAIN] = head, tail, size
