"""A pod's top tier under LRU: the cluster kernel's update of it for one request, in registers.

serve_request's generic path reaches each cache through dispatch.py and keeps every list's ends
and size in memory, so each insert's stores make the next access load them again (the state's
arrays may alias, as far as the compiler knows). When a pod's top tier is LRU (vLLM's policy,
the default) and no policy reads block keys, the top tier's moves, those of replay_lru_single,
run with its list's ends and size in registers and are written back at the request's end, and
so do a second tier's when it is LRU too (its hits and the top tier's demoted victims) and the
EPP view's victim list (views.follow_victims); the moves are policies/lru_registers.py's, and a third
tier goes through the shared code. On the conversation trace `run_replay` of one pod took
6.8 -> 4.3 ms, 8 pods under the prefix router with HBM only 14 -> 6-8 ms and with a CPU tier
17.4 -> 14.5 ms; then `simulate` of that 15.7 -> 14.1 ms with the CPU tier's and the view's ends
in registers too (docs/engine.md). The pure-Python twin of the cluster holds it to the same hits
(tests/engine/test_twins_property.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.engine.policies import lru
from dashboard.engine.policies.dispatch import contains, insert, touch
from dashboard.engine.policies.lru_registers import ends, pop_oldest, push_front, store_ends, to_front
from dashboard.engine.policies.state import MAIN, NUM_LISTS, CacheState
from dashboard.engine.views import follow_victims


@njit(cache=True, _nrt=False, inline="always")
def serve_alone(st: CacheState, c: int, blocks: np.ndarray) -> None:
    """serve_top_lru for a pod's only tier with no view to tell: the same moves, nothing else in the loop.

    A victim view of a one-tier pod (views.py) is its tier and no victims.
    """
    s = st.link.shape[1] - NUM_LISTS + MAIN
    head, tail, size, cap = ends(st, c, s)
    k = blocks.shape[0] - 1
    while k >= 0:
        bot = blocks[k]
        if st.where[bot, c] != 0:
            j, head, tail = _splice_run(st, c, s, blocks, k, head, tail)
            k = j - 1
            continue
        head, tail = push_front(st, c, s, bot, head, tail)
        size += 1
        if size > cap:
            _, head, tail = pop_oldest(st, c, s, head, tail)
            size -= 1
        k -= 1
    store_ends(st, c, s, head, tail, size)


@njit(cache=True, _nrt=False, inline="always")
def serve_top_lru(
    st: CacheState,
    info: tuple,
    c: int,
    num_tiers: int,
    blocks: np.ndarray,
    num_hits: int,
    hit_tier: np.ndarray,
    view: int,
    enable_offload: bool,
    tick: int,
) -> tuple:
    """serve_request's update after the staged lookup, for a pod whose top tier c is LRU and whose
    policies read no block keys; (blocks written below the top, tick).

    Blocks tail first: a run resident in the top tier spliced to its front; an absent block
    touched in the lower tier the lookup found it in, inserted at the top, the top's oldest
    evicted over capacity, told to the victim view (view >= 0) and demoted a tier down, as
    insert_cascade does. A second tier under LRU and the view's victim list move here, their ends
    in registers; other lower tiers and a third tier go through dispatch.py.
    """
    follow = view >= 0 and st.cap[view] > 0  # NOTE: a view with no room for victims is the top tier
    if num_tiers == 1 and not follow:
        serve_alone(st, c, blocks)
        return 0, tick + blocks.shape[0]
    s = st.link.shape[1] - NUM_LISTS + MAIN
    head, tail, size, cap = ends(st, c, s)
    offload = num_tiers > 1 and enable_offload
    # NOTE: a second tier under LRU too (the default: every tier takes the pod's policy) keeps its
    # ends and size in registers as well; any other goes through dispatch.py.
    low = c + 1
    low_lru = num_tiers > 1 and st.pol[low] == lru.POLICY_ID
    head2, tail2, size2, cap2 = ends(st, low, s) if low_lru else (s, s, 0, 0)
    # NOTE: and so does the view's victim list (views.follow_victims)
    vhead, vtail, vsize, vcap = ends(st, view, s) if follow else (s, s, 0, 0)
    stored = 0
    k = blocks.shape[0] - 1
    while k >= 0:
        bot = blocks[k]
        if st.where[bot, c] != 0:
            j, head, tail = _splice_run(st, c, s, blocks, k, head, tail)
            tick += k - j + 1
            k = j - 1
            continue
        tick += 1
        if k < num_hits and hit_tier[k] > 0 and contains(st, c + hit_tier[k], bot):
            if low_lru and hit_tier[k] == 1:
                head2, tail2 = to_front(st, low, s, bot, bot, head2, tail2)
            else:
                touch(st, c + hit_tier[k], bot, tick, info)
        head, tail = push_front(st, c, s, bot, head, tail)
        size += 1
        victim = -1
        if size > cap:
            victim, head, tail = pop_oldest(st, c, s, head, tail)
            size -= 1
        if follow:
            vhead, vtail, vsize = follow_victims(st, view, s, bot, victim, vhead, vtail, vsize, vcap)
        if offload and victim >= 0:
            if not low_lru:
                stored += demote(st, info, c, num_tiers, victim, tick)
            elif st.where[victim, low] != 0:  # demote's touch in the tier below
                head2, tail2 = to_front(st, low, s, victim, victim, head2, tail2)
            else:  # demote's insert there, its victim on down
                stored += 1
                head2, tail2 = push_front(st, low, s, victim, head2, tail2)
                size2 += 1
                if size2 > cap2:
                    old, head2, tail2 = pop_oldest(st, low, s, head2, tail2)
                    size2 -= 1
                    if num_tiers > 2:
                        demote(st, info, low, num_tiers - 1, old, tick)
        k -= 1
    store_ends(st, c, s, head, tail, size)
    if low_lru:
        store_ends(st, low, s, head2, tail2, size2)
    if follow:
        store_ends(st, view, s, vhead, vtail, vsize)
    return stored, tick


@njit(cache=True, _nrt=False, inline="always")
def demote(st: CacheState, info: tuple, c: int, num_tiers: int, b: int, tick: int) -> int:
    """The top tier c evicted b: into the tier below (touched if there), its victims on down; 1 if b was
    written below the top, else 0 (insert_cascade from its second tier)."""
    stored = 0 if contains(st, c + 1, b) else 1
    t, cur = 1, b
    while True:
        if contains(st, c + t, cur):
            touch(st, c + t, cur, tick, info)
            return stored
        cur = insert(st, c + t, cur, tick, info)
        if cur < 0 or t + 1 >= num_tiers:
            return stored
        t += 1


@njit(cache=True, _nrt=False, inline="always")
def _splice_run(st: CacheState, c: int, s: int, blocks: np.ndarray, k: int, head: int, tail: int) -> tuple:
    """Move the resident run blocks[j..k] (lru.run_start) to the front at once; (j, head, tail)."""
    j = lru.run_start(st, c, blocks, k)
    head, tail = to_front(st, c, s, blocks[j], blocks[k], head, tail)
    return j, head, tail
