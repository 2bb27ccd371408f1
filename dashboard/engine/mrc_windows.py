"""Miniature curves near the trunk, replayed over windows of time instead (mrc_sampled.py's helper).

Where the trunk (the system prompts every request shares) fills much of a miniature cache, the
miniature stops behaving as the full cache: it holds a few sampled requests beside the trunk
where the full cache holds hundreds (on the 100M-access scale trace S3-FIFO's sampled curve was
0.026-0.062 off there). Such a capacity is small beside the trace, so its cache forgets fast: a
replay of the whole trace at the full capacity over a few stretches of time, each after a warm-up
of a few cache fills, sees what the whole replay sees there. NUM_WINDOWS windows, evenly spaced,
count WINDOW_ACCESSES accesses, at most MAX_WINDOW_SHARE of the trace's (window_share); before
each, a warm-up of WARMUP_FILLS × C / (LRU's miss ratio at C) accesses (the time the cache takes
to fill with misses) is replayed but not counted. The same windows through LRU are the control
variate, as for the miniatures, with one more: where the policy hits all that an unlimited cache
hits over the windows, the curve there is the exact ceiling (mrc_sampled.corrected).

A capacity is replayed this way when the trunk fills over window_trunk_share(policy) of its
miniature and the windows with their warm-ups cost at most WINDOW_BUDGET of a replay of the trace,
whatever the policy: the learned policy's predictor carries more of the past than a warm-up
replays, but near the trunk the windows still beat the miniatures (docs/whatif.md has what
each gains). The policies on lazy heaps reach further from the trunk, as they can afford it.
"""

from __future__ import annotations

import numpy as np

from dashboard.core.types import MissRatioCurve, Trace
from dashboard.engine.mrc import lru_mrc, replay_each
from dashboard.engine.policies import policy_info
from dashboard.engine.sub_traces import sub_trace

NUM_WINDOWS = 5
# NOTE: what the windows miss by depends on how many requests they count, not on the share of the
# trace: on the 100M-access scale trace, counting 5% of it instead of 10% moved S3-FIFO's worst error
# at its 11 windowed capacities from 0.0035 to 0.0063 (ARC 0.0043 to 0.0045) and took its windows
# from 1.6 s to 1.0 s; on smaller traces the share caps them
WINDOW_ACCESSES = 5_000_000
MAX_WINDOW_SHARE = 0.1
WARMUP_FILLS = 2.0
MIN_MISS_RATIO = 0.05  # NOTE: a warm-up's floor: a cache that almost never misses still fills
WINDOW_TRUNK_SHARE = 1 / 3
# NOTE: a policy on lazy heaps (PolicyInfo.uses_heap) replays 3-8× slower, so the sampled curve's
# fixed costs (the sampling pass, the exact LRU control) weigh less beside its sweep and it can pay
# for more windows: on the 100M-access scale trace a quarter took the learned policy's worst error
# from 0.035 to 0.008 (at 36× instead of 41× faster than its sweep), the oracle's and LFU's stayed;
# S3-FIFO and ARC would fall to 9.3-10.3× (docs/whatif.md)
HEAP_WINDOW_TRUNK_SHARE = 1 / 4
WINDOW_BUDGET = 0.5  # of one replay of the trace, per capacity, warm-ups included
MIN_WINDOW_REQUESTS = 50  # each window counts at least this many requests on average


def window_share(num_accesses: int) -> float:
    """The share of a trace of num_accesses block accesses that the windows count."""
    return min(MAX_WINDOW_SHARE, WINDOW_ACCESSES / max(num_accesses, 1))


def warmups(capacities: np.ndarray, lru_hit_ratio: np.ndarray) -> np.ndarray:
    """Accesses replayed before each window at each capacity: WARMUP_FILLS fills of the cache with
    LRU's misses there (lru_hit_ratio: the exact LRU block hit ratio at each capacity)."""
    miss = np.maximum(1.0 - lru_hit_ratio, MIN_MISS_RATIO)
    return WARMUP_FILLS * np.asarray(capacities, np.float64) / miss


def window_trunk_share(policy: str) -> float:
    """How much of a miniature cache the trunk must fill for policy's windows to replace it."""
    return HEAP_WINDOW_TRUNK_SHARE if policy_info(policy).uses_heap else WINDOW_TRUNK_SHARE


def window_candidates(trace: Trace, policy: str, miniatures: np.ndarray, num_trunk: int) -> np.ndarray:
    """Which capacities the windows suit: the trunk fills over window_trunk_share(policy) of the
    miniature cache (miniatures: each capacity's miniature size at the sampling rate, 0 where it is
    replayed whole anyway) and the trace has requests enough for the windows."""
    if trace.num_requests * window_share(trace.num_block_accesses) < NUM_WINDOWS * MIN_WINDOW_REQUESTS:
        return np.zeros(len(miniatures), np.bool_)
    return (miniatures > 0) & (num_trunk > window_trunk_share(policy) * miniatures)


def affordable(trace: Trace, warm: np.ndarray) -> np.ndarray:
    """Whether the windows, with warm accesses of warm-up before each, cost at most WINDOW_BUDGET."""
    total = max(trace.num_block_accesses, 1)
    return window_share(total) + NUM_WINDOWS * warm / total <= WINDOW_BUDGET


def window_requests(trace: Trace, warm: float) -> tuple[np.ndarray, np.ndarray]:
    """(the requests the windows replay, ascending; whether each is counted): NUM_WINDOWS windows of
    window_share / NUM_WINDOWS of the accesses each, centred on evenly spaced points, each after
    warm accesses that are replayed but not counted."""
    ends = np.cumsum(np.diff(trace.offsets))  # accesses up to and including each request
    total = float(trace.num_block_accesses)
    length = window_share(trace.num_block_accesses) * total / NUM_WINDOWS
    replayed = np.zeros(trace.num_requests, np.bool_)
    counted = np.zeros(trace.num_requests, np.bool_)
    for w in range(NUM_WINDOWS):
        start = (w + 0.5) * total / NUM_WINDOWS - length / 2
        first, counted_from, stop = np.searchsorted(
            ends, [max(start - warm, 0.0), start, start + length], "right"
        )
        replayed[first:stop] = True
        counted[counted_from:stop] = True
    requests = np.flatnonzero(replayed)
    return requests, counted[requests]


def window_curves(
    trace: Trace, policy: str, capacities: np.ndarray, warm: np.ndarray
) -> tuple[MissRatioCurve, MissRatioCurve, MissRatioCurve]:
    """(the policy's curve, LRU's, an unlimited cache's) over the windows, counted requests only, at
    each capacity (the windows differ by capacity, and so does their ceiling).

    NOTE: capacities whose warm-ups lie within a factor of two replay the same windows, after the
    longest of those warm-ups: one sub-trace per band, not per capacity (building one took about
    a third of its replay at 100M accesses), for a little more replay at the smaller ones."""
    caps = np.asarray(capacities, np.int64)
    warm = np.asarray(warm, np.float64)
    band = np.floor(np.log2(warm / warm.min())).astype(np.int64)
    ratios = np.empty((6, caps.size))
    for b in np.unique(band):
        at = np.flatnonzero(band == b)
        ratios[:, at] = _band_ratios(trace, policy, caps[at], float(warm[at].max()))
    return (
        MissRatioCurve(caps, ratios[0], ratios[1]),
        MissRatioCurve(caps, ratios[2], ratios[3]),
        MissRatioCurve(caps, ratios[4], ratios[5]),
    )


def _band_ratios(trace: Trace, policy: str, caps: np.ndarray, warm: float) -> np.ndarray:
    """[policy's block, token, LRU's block, token, an unlimited cache's block, token hit ratio] × caps
    over the windows after warm accesses."""
    requests, counted = window_requests(trace, warm)
    sub = sub_trace(trace, requests)
    blocks = max(float(np.diff(sub.offsets)[counted].sum()), 1.0)
    prompt = sub.input_tokens[counted]
    tokens = max(float(prompt.sum()), 1.0)
    hits = [h[counted].astype(np.int64) for h in replay_each(sub, caps, policy)]
    # NOTE: LRU's one pass, the same hits as a replay per capacity; its last point holds every block
    lru = lru_mrc(sub, np.append(caps, sub.num_blocks), counted=counted)
    return np.array(
        [
            [h.sum() / blocks for h in hits],
            [np.minimum(h * sub.block_tokens, prompt).sum() / tokens for h in hits],
            lru.block_hit_ratio[:-1],
            lru.token_hit_ratio[:-1],
            np.full(caps.size, lru.block_hit_ratio[-1]),
            np.full(caps.size, lru.token_hit_ratio[-1]),
        ]
    )
