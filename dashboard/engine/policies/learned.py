"""Learned continuation policy in the spirit of LPC (Yang et al., NeurIPS 2025).

Each request i gets a continuation probability p_i = P(its session sends another request within
`horizon_s`), estimated ONLINE from what is known when it arrives. A request has one value in
each feature group (turn number, idle time since the session's previous request, prompt growth
over that request, input length, request type); each value keeps the continuation rate of
the resolved requests that had it (a request resolves when its session's next request arrives
within the horizon, or when the horizon passes without one), shrunk towards the global rate with
`prior_weight` pseudo-requests. The groups' evidence adds in log-odds (naive Bayes): one sparse
table per group generalises where one cell per combination of values would see few requests.
A block touched by request i scores p_i · exp(−(now − t_i) / decay_s); a block shared by several
requests keeps its highest score. Eviction order: lowest current score first; ties: deeper block
first, then larger block id. Because the decay is the same exponential for every block, the
order at any time equals the order of the static key log p_i + t_i / decay_s, which is what the
lazy min-heap holds (k1; k2 = tie).

Blocks learned to be seldom read again (a partial last block, a superseded tail) score lower by
the log of their learned rate (learned_blocks.py); `rescore` re-keys a block whose score fell.

Online means a request's own output length is never read: it is known only after decoding,
after the request's blocks were scored (tests/engine/test_learned_causality.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from dashboard.engine.policies.state import MAIN, CacheState, heap_pop_live, heap_push

POLICY_ID = 5
NAME = "learned"
DESCRIPTION = (
    "LPC-style learned continuation score (online, past only) with exponential idle decay; blocks it "
    "learns are seldom read again (a partial last block, a superseded tail) go first"
)
IDLE_EDGES_S = (10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
INPUT_EDGES = (1000, 2000, 4000, 8000, 16000, 32000, 64000)  # tokens
NUM_TURN, NUM_IDLE, NUM_GROWTH, NUM_TYPE = 6, len(IDLE_EDGES_S) + 2, 4, 9
NUM_INPUT = len(INPUT_EDGES) + 1
GROUP_SIZES = (NUM_TURN, NUM_IDLE, NUM_GROWTH, NUM_INPUT, NUM_TYPE)
NUM_GROUPS = len(GROUP_SIZES)
NUM_VALUES = sum(GROUP_SIZES)


@dataclass(frozen=True)
class LearnedOptions:
    """Knobs of the learned policy: the continuation horizon, the score decay and the prior."""

    horizon_s: float = 300.0  # a session idle longer than this counts as not continuing
    decay_s: float = 150.0  # e-folding time of a block's score while its session is idle
    prior_weight: float = 4.0  # pseudo-requests at the global rate behind each feature value
    # Lower the scores of blocks learned to be seldom read again (learned_blocks.py): a request's
    # partial last block, a tail the session's next request superseded.
    block_rules: bool = True
    # Per-request continuation probabilities from an outside predictor (e.g. a model of the
    # prompts' text, as LPC uses), in the trace's request order; they replace the online one.
    probabilities: np.ndarray | None = field(default=None, compare=False)


@njit(cache=True, _nrt=False)
def _bin(x: float, edges: tuple) -> int:
    k = 0
    for edge in edges:
        if x >= edge:
            k += 1
    return k


@njit(cache=True)
def feature_values(
    turn: np.ndarray,
    idle_s: np.ndarray,
    growth_blocks: np.ndarray,
    input_tokens: np.ndarray,
    type_code: np.ndarray,
) -> np.ndarray:
    """Per request, its value index in each group (int64 [n, NUM_GROUPS], indexes unique across groups).

    turn {0,1,2,3-4,5-8,9+}; idle (none = −1, then the 6 edges); growth {≤1,≤4,≤16,more} blocks;
    input tokens by their edges; type (unknown = −1, then codes 0-7, capped).
    """
    n = turn.shape[0]
    out = np.zeros((n, NUM_GROUPS), np.int64)
    for i in range(n):
        t = turn[i]
        g = growth_blocks[i]
        values = (
            0 if t <= 0 else (t if t <= 2 else (3 if t <= 4 else (4 if t <= 8 else 5))),
            0 if idle_s[i] < 0.0 else 1 + _bin(idle_s[i], IDLE_EDGES_S),
            0 if g <= 1 else (1 if g <= 4 else (2 if g <= 16 else 3)),
            _bin(input_tokens[i], INPUT_EDGES),
            min(max(type_code[i] + 1, 0), NUM_TYPE - 1),
        )
        offset = 0
        for k in range(NUM_GROUPS):
            out[i, k] = offset + values[k]
            offset += GROUP_SIZES[k]
    return out


@njit(cache=True)
def continuation_keys(
    arrival_s: np.ndarray,
    parent: np.ndarray,
    features: np.ndarray,
    horizon_s: float,
    decay_s: float,
    prior_weight: float,
) -> np.ndarray:
    """Per-request static score key log p_i + t_i/decay_s, p_i learned from requests resolved before t_i."""
    n = arrival_s.shape[0]
    cont = np.zeros(NUM_VALUES)
    total = np.zeros(NUM_VALUES)
    resolved = np.zeros(n, np.bool_)
    keys = np.zeros(n)
    g_cont, g_total, head = 0.0, 0.0, 0
    for i in range(n):
        t = arrival_s[i]
        p = parent[i]
        if p >= 0 and not resolved[p]:
            resolved[p] = True
            ok = 1.0 if t - arrival_s[p] <= horizon_s else 0.0
            g_cont += ok
            g_total += 1.0
            for k in range(NUM_GROUPS):
                cont[features[p, k]] += ok
                total[features[p, k]] += 1.0
        while head < i and arrival_s[head] + horizon_s < t:
            if not resolved[head]:
                resolved[head] = True
                g_total += 1.0
                for k in range(NUM_GROUPS):
                    total[features[head, k]] += 1.0
            head += 1
        rate = (g_cont + 1.0) / (g_total + 2.0)
        prior_logit = math.log(rate / (1.0 - rate))
        logit = prior_logit
        for k in range(NUM_GROUPS):
            v = features[i, k]
            r = (cont[v] + prior_weight * rate) / (total[v] + prior_weight)
            logit += math.log(r / (1.0 - r)) - prior_logit
        keys[i] = -math.log1p(math.exp(-logit)) + t / decay_s  # log p, p = sigmoid(logit)
    return keys


@njit(cache=True, _nrt=False)
def _set_key(st: CacheState, c: int, b: int, info: tuple) -> None:
    key = info.score[b]
    if st.where[b, c] != 1 or st.k1[c, b] < key:
        st.where[b, c] = 1
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
    st.where[b, c] = 0
    _set_key(st, c, b, info)


@njit(cache=True, _nrt=False)
def evict(st: CacheState, c: int) -> int:
    """Remove and return the block with the lowest score."""
    b = heap_pop_live(st, c)
    st.where[b, c] = 0
    st.lsize[c, MAIN] -= 1
    return b


@njit(cache=True, _nrt=False)
def rescore(st: CacheState, c: int, b: int, info: tuple) -> None:
    """Re-key resident block b to its current score, lower or higher (learned_blocks: a superseded tail)."""
    if st.where[b, c] == 1 and st.k1[c, b] != info.score[b]:
        st.k1[c, b] = info.score[b]
        heap_push(st, c, b)  # NOTE: the entry with the old key no longer matches k1, so it is skipped
