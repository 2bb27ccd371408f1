"""Learned continuation policy in the spirit of LPC (Yang et al., NeurIPS 2025).

Each request i gets a continuation probability p_i = P(its session sends another request within
`horizon_s`), estimated ONLINE from the past of the trace only: requests are bucketed by turn
number, idle time since the session's previous request, prompt growth over that request and the
request type; a bucket's frequency is updated when one of its requests is seen to continue (the
session's next request arrives within the horizon) or to stay idle beyond the horizon. Buckets
are shrunk towards the global rate (`prior_weight` pseudo-requests). A block touched by request i
scores p_i · exp(−(now − t_i) / decay_s); a block shared by several requests keeps its highest
score. Eviction order: lowest current score first; ties: deeper block first, then larger block id.
Because the decay is the same exponential for every block, the order at any time equals the order
of the static key log p_i + t_i / decay_s, which is what the lazy min-heap holds (k1; k2 = tie).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from dashboard.engine.policies.state import MAIN, CacheState, heap_pop_live, heap_push

POLICY_ID = 5
NAME = "learned"
DESCRIPTION = "LPC-style learned continuation score (online, past only) with exponential idle decay"
IDLE_EDGES_S = (10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
NUM_TURN, NUM_IDLE, NUM_GROWTH, NUM_TYPE = 6, len(IDLE_EDGES_S) + 2, 4, 9
NUM_BUCKETS = NUM_TURN * NUM_IDLE * NUM_GROWTH * NUM_TYPE


@dataclass(frozen=True)
class LearnedOptions:
    """Knobs of the learned policy: the continuation horizon, the score decay and the prior."""

    horizon_s: float = 600.0  # a session idle longer than this counts as not continuing
    decay_s: float = 300.0  # e-folding time of a block's score while its session is idle
    prior_weight: float = 4.0  # pseudo-requests at the global rate in each bucket


@njit(cache=True, _nrt=False)
def bucket_of(turn: int, idle_s: float, growth_blocks: int, type_code: int) -> int:
    """Feature bucket: turn {0,1,2,3-4,5-8,9+} × idle (none, 6 edges) × growth {≤1,≤4,≤16,more} × type."""
    tb = 0 if turn <= 0 else (turn if turn <= 2 else (3 if turn <= 4 else (4 if turn <= 8 else 5)))
    ib = 0
    if idle_s >= 0.0:
        ib = 1
        for edge in IDLE_EDGES_S:
            if idle_s >= edge:
                ib += 1
    gb = 0 if growth_blocks <= 1 else (1 if growth_blocks <= 4 else (2 if growth_blocks <= 16 else 3))
    yb = min(max(type_code + 1, 0), NUM_TYPE - 1)
    return ((tb * NUM_IDLE + ib) * NUM_GROWTH + gb) * NUM_TYPE + yb


@njit(cache=True)
def continuation_keys(
    arrival_s: np.ndarray, parent: np.ndarray, turn: np.ndarray, growth: np.ndarray, type_code: np.ndarray,
    horizon_s: float, decay_s: float, prior_weight: float,
) -> np.ndarray:
    """Per-request static score key log p_i + t_i/decay_s, p_i learned from requests resolved before t_i."""
    n = arrival_s.shape[0]
    cont = np.zeros(NUM_BUCKETS)
    total = np.zeros(NUM_BUCKETS)
    bucket = np.zeros(n, np.int64)
    resolved = np.zeros(n, np.bool_)
    keys = np.zeros(n)
    g_cont, g_total, head = 0.0, 0.0, 0
    for i in range(n):
        t = arrival_s[i]
        p = parent[i]
        if p >= 0 and not resolved[p]:
            resolved[p] = True
            ok = 1.0 if t - arrival_s[p] <= horizon_s else 0.0
            cont[bucket[p]] += ok
            total[bucket[p]] += 1.0
            g_cont += ok
            g_total += 1.0
        while head < i and arrival_s[head] + horizon_s < t:
            if not resolved[head]:
                resolved[head] = True
                total[bucket[head]] += 1.0
                g_total += 1.0
            head += 1
        idle = t - arrival_s[p] if p >= 0 else -1.0
        b = bucket_of(turn[i], idle, growth[i], type_code[i])
        bucket[i] = b
        rate = (g_cont + 1.0) / (g_total + 2.0)
        prob = (cont[b] + prior_weight * rate) / (total[b] + prior_weight)
        keys[i] = math.log(max(prob, 1e-9)) + t / decay_s
    return keys


@njit(cache=True, _nrt=False)
def _set_key(st: CacheState, c: int, b: int, info: tuple) -> None:
    key = info.score[b]
    if st.where[c, b] != 1 or st.k1[c, b] < key:
        st.where[c, b] = 1
        st.k1[c, b] = key
        st.k2[c, b] = info.tie[b]
        heap_push(st, c, b)


@njit(cache=True, _nrt=False)
def hit(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Keep the block's highest score."""
    _set_key(st, c, b, info)


@njit(cache=True, _nrt=False)
def insert(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Add an absent block with its current score."""
    st.lsize[c, MAIN] += 1
    st.where[c, b] = 0
    _set_key(st, c, b, info)


@njit(cache=True, _nrt=False)
def evict(st: CacheState, c: int) -> int:
    """Remove and return the block with the lowest score."""
    b = heap_pop_live(st, c)
    st.where[c, b] = 0
    st.lsize[c, MAIN] -= 1
    return b
