"""Approximate miss-ratio curves for any policy: miniature simulations of a spatially sampled trace.

SHARDS and miniature simulations (Waldspurger et al., "Cache Modeling and Optimization using
Miniature Simulations", ATC'17) replay the references of a hash-chosen fraction R of the objects
through a cache of R × C to estimate the hit ratio at C. Here the objects are chains of prefix
blocks, and a request can only hit a prefix of its chain, so the sampling unit is a subtree of
the prefix tree, never a block: a request belongs to the subtree of its first block that is not
*trunk* (a block on the path of requests holding over TRUNK_SHARE of all block accesses, such
as a system prompt every request shares). A hash of that block decides the whole unit, so a
sampled request keeps its whole chain and every request that shares a non-trunk block with it
comes too. Trunk blocks are kept whole rather than sampled: the sampled cache holds them plus R
of the rest, C' = T + R_eff × (C − T), where R_eff is the share of non-trunk blocks sampled.

Where the trunk would fill over two thirds of the miniature cache (capacities a few times the
trunk), its queues and counts stop behaving as the full cache's (S3-FIFO's main queue cannot hold
the trunk), so those capacities are sampled at twice, four times ... the rate, and replayed exactly
from half the trace on, as is a cache no larger than the trunk (capacity_rates). Where the trunk
fills over a third of it (a quarter for the policies on lazy heaps), a capacity is replayed whole
over windows of time instead, when they cost at most half a replay (mrc_windows.py).

The sampled curve is then corrected with the exact LRU curve as a control variate: the estimate
at C is P_sample(C') − LRU_sample(C') + LRU_exact(C). Sampling noise that moves both policies
alike (which sessions were drawn, how much they reuse) cancels, and at a capacity holding every
block the estimate is the exact ceiling.

Accuracy is measured, not promised: MEASURED_MAX_ABS_ERROR holds the worst absolute error
against the exact sweep, per policy, at DEFAULT_RATE (docs/whatif.md has the figures and rates).
On the bundled traces it is 0.06-0.14, not 0.01: a sampled trace keeps whole requests of tens of
blocks while its cache shrinks 20-fold, and the traces hold a few thousand sessions, so which
were drawn moves the curve (on the conversation trace the error is noise, not bias: its mean over
20 seeds stays within 0.011). Raising the rate helps slowly (docs/whatif.md), so the exact sweep
stays the default wherever a figure is reported.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from dashboard.core.types import MissRatioCurve, SampledCurve, Trace
from dashboard.engine.mrc import (
    curve_from_hits,
    default_capacities,
    exact_is_quick,
    lru_mrc,
    policy_mrc,
    replay_each,
)
from dashboard.engine.mrc_windows import affordable, warmups, window_candidates, window_curves
from dashboard.engine.policies import policy_info
from dashboard.engine.sub_traces import sub_trace_and_blocks

DEFAULT_RATE = 0.05
TRUNK_SHARE = 0.01  # NOTE: a unit heavier than 1% of the accesses would swing the sample alone
# NOTE: the trunk may fill at most 1 / (1 + TRUNK_ROOM) of a miniature cache (module docstring).
# On the embedded sample (284 trunk blocks) this took S3-FIFO's worst error from 0.169 to 0.039 and
# LFU's from 0.334 to 0.125, at 2.7× faster than the exact sweep instead of 7.6×; 0.25 left 0.068.
TRUNK_ROOM = 0.5
# NOTE: a sample of half the trace or more costs about what the exact replay costs. Raising at most
# to 25% instead left S3-FIFO 0.055 off on the embedded sample (4.2× faster than the sweep) and
# 0.080 on a 10M-access scale trace (3.1×), against 0.039 (2.7×) and 0.045 (1.7-2.0×).
EXACT_ABOVE = 0.5
# Worst |sampled − exact| over block and token ratio, every point of the default 55-capacity grid,
# seeds 0-2, on the Mooncake conversation and synthetic traces and the embedded sample, at
# DEFAULT_RATE, rounded up (docs/whatif.md has the figures per trace; tests/engine/test_mrc_sampled.py
# rechecks them).
# NOTE: far from 0.01. Miniature caches shrink, but requests (chains of tens of blocks) do not.
# FIFO and LFU have none: their exact curves are quick (mrc_fifo.py's passes, LFU's heap-free replays).
MEASURED_MAX_ABS_ERROR: dict[str, float] = {
    "s3fifo": 0.07,
    "arc": 0.08,
    "learned": 0.06,
    "oracle": 0.14,
}
_MASK64 = (1 << 64) - 1


def sampling_units(trace: Trace, trunk_share: float = TRUNK_SHARE) -> tuple[np.ndarray, np.ndarray]:
    """(sampling key per request, is-trunk per block): the key is the request's first non-trunk block,
    or num_blocks + its index when every block of it is trunk (such a request is its own unit)."""
    return _units(trace.offsets, trace.block_ids, trace.num_blocks, trunk_share * trace.num_block_accesses)


@njit(cache=True, nogil=True)  # NOTE: nogil: the exact LRU control runs beside it
def _units(offsets: np.ndarray, block_ids: np.ndarray, num_blocks: int, trunk_weight: float) -> tuple:
    """sampling_units in two passes (numpy's repeat-and-bincount took 3 ms on the conversation trace).

    NOTE: a block's weight is the accesses of the requests reading it; it never grows along a
    chain (every request reading a block reads its parent too), so trunk blocks form the top of the tree.
    """
    weight = np.zeros(num_blocks, np.int64)
    for r in range(offsets.shape[0] - 1):
        for a in range(offsets[r], offsets[r + 1]):
            weight[block_ids[a]] += offsets[r + 1] - offsets[r]
    is_trunk = weight > trunk_weight
    keys = np.empty(offsets.shape[0] - 1, np.int64)
    for r in range(keys.shape[0]):
        keys[r] = num_blocks + r
        for a in range(offsets[r], offsets[r + 1]):
            if not is_trunk[block_ids[a]]:
                keys[r] = block_ids[a]
                break
    return keys, is_trunk


def sample_requests(trace: Trace, rate: float, seed: int = 0) -> np.ndarray:
    """Indices of the requests whose sampling unit hashes below rate (ascending)."""
    keys, _ = sampling_units(trace)
    return np.flatnonzero(unit_hash(keys, seed) < rate)


def unit_hash(keys: np.ndarray, seed: int) -> np.ndarray:
    """A uniform number in [0, 1) per key, fixed by seed (splitmix64)."""
    z = keys.astype(np.uint64) + np.uint64((0x9E3779B97F4A7C15 * (seed + 1)) & _MASK64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def scaled_capacities(capacities: np.ndarray, num_trunk: int, rate: float, limit: int) -> np.ndarray:
    """C' = C up to the trunk, then trunk + rate × the rest, at most limit blocks."""
    caps = np.asarray(capacities, np.int64)
    scaled = np.where(caps <= num_trunk, caps, num_trunk + np.round(rate * (caps - num_trunk)))
    return np.minimum(scaled.astype(np.int64), limit)


def sampled_policy_mrc(
    trace: Trace,
    policy: str,
    capacities: np.ndarray | None = None,
    num_points: int = 50,
    rate: float = DEFAULT_RATE,
    seed: int = 0,
) -> SampledCurve:
    """Approximate curve of policy by a miniature simulation (exact for LRU, FIFO and LFU, whose exact
    curves are quick (exact_is_quick), or when rate >= 1)."""
    policy_info(policy)
    if not rate > 0.0:  # NOTE: also refuses NaN
        raise ValueError(f"sampling rate must be positive, got {rate}")
    caps = default_capacities(trace.num_blocks, num_points) if capacities is None else np.asarray(capacities)
    if caps.size and caps.min() < 0:
        raise ValueError("capacities must be non-negative")
    if exact_is_quick(policy) or rate >= 1.0 or trace.num_requests == 0:
        # LRU's or FIFO's passes, LFU's heap-free replays, or every request kept anyway
        exact = policy_mrc(trace, policy, caps, num_points)
        return SampledCurve(exact, policy, 1.0, seed, trace.num_requests, 0, 0.0)
    # NOTE: the exact LRU control runs beside the sampling and the miniature replays (its one pass
    # releases the GIL): it was a fifth of the sampled curve's time after them, and beside the
    # sampling units' pass it fills the core that pass leaves idle
    with ThreadPoolExecutor(1, thread_name_prefix="kvscope-control") as pool:
        control = pool.submit(lru_mrc, trace, np.append(caps, trace.num_blocks))
        keys, is_trunk = sampling_units(trace)
        hashes = unit_hash(keys, seed)
        requests = np.flatnonzero(hashes < rate)
        if requests.size == 0:
            raise ValueError(f"sampling rate {rate} keeps no request of this trace; raise the rate")
        num_trunk = int(is_trunk.sum())
        rates = capacity_rates(caps, num_trunk, rate)
        # NOTE: capacities the windows may suit wait for the exact LRU curve, which sizes their warm-ups
        miniature = np.where(rates < 1.0, num_trunk + rate * np.maximum(caps - num_trunk, 0), 0.0)
        maybe = window_candidates(trace, policy, miniature, num_trunk)
        samples: dict[float, tuple] = {}  # NOTE: each rate's sub-trace, built once for both calls
        parts = _miniatures(trace, policy, caps, rates, ~maybe, hashes, is_trunk, samples)
        exact_lru = control.result()
    warm = warmups(caps, exact_lru.block_hit_ratio[:-1])
    by_windows = maybe & affordable(trace, warm)
    parts += _miniatures(trace, policy, caps, rates, maybe & ~by_windows, hashes, is_trunk, samples)
    if by_windows.any():
        parts.append((by_windows, window_curves(trace, policy, caps[by_windows], warm[by_windows])))
    curve = _joined(caps, parts, exact_lru)
    error = MEASURED_MAX_ABS_ERROR.get(policy) if rate == DEFAULT_RATE else None
    raised = int(((rates > rate) & ~by_windows).sum())
    return SampledCurve(
        curve, policy, float(rate), seed, int(requests.size), num_trunk, error, raised, int(by_windows.sum())
    )


def _miniatures(
    trace, policy, caps, rates, where, hashes, is_trunk, samples
) -> list[tuple[np.ndarray, tuple]]:
    """The parts of the curve at caps[where], one miniature per sampling rate: (where that rate, its
    curves); samples keeps each rate's sub-trace and kept blocks for a later call."""
    parts = []
    for r in np.unique(rates[where]):
        kept_units = hashes < r
        if r not in samples and not kept_units.all():
            samples[r] = sub_trace_and_blocks(trace, np.flatnonzero(kept_units))
        at = where & (rates == r)
        parts.append((at, _miniature(trace, policy, caps[at], samples.get(r), is_trunk)))
    return parts


def capacity_rates(capacities: np.ndarray, num_trunk: int, rate: float) -> np.ndarray:
    """The sampling rate at each capacity: rate, doubled until the miniature cache has room for at
    least TRUNK_ROOM × num_trunk blocks beside the trunk; a raised rate of EXACT_ABOVE or more is
    1.0 (the exact replay)."""
    rest = np.asarray(capacities, np.int64) - num_trunk
    # NOTE: a cache no larger than the trunk is replayed whole: its miniature would keep the trunk
    # that the full cache's other traffic pushes out
    needed = np.where(rest > 0, TRUNK_ROOM * num_trunk / np.maximum(rest, 1), np.inf if num_trunk else 0.0)
    doublings = np.ceil(np.log2(np.maximum(needed / rate, 1.0)))
    raised = rate * 2.0**doublings
    return np.where(raised > rate, np.where(raised < EXACT_ABOVE, raised, 1.0), rate)


def _miniature(
    trace: Trace, policy: str, caps: np.ndarray, sample: tuple | None, is_trunk: np.ndarray
) -> tuple[MissRatioCurve, MissRatioCurve | None]:
    """(the policy's curve, the LRU control's) of sample (the sub-trace of the kept units and its
    blocks' ids) through caches scaled to its share, at each of caps; no sample (every request
    kept) is the exact replay, which needs no control."""
    if sample is None:
        return curve_from_hits(trace, caps, replay_each(trace, caps, policy)), None
    sub, kept = sample
    num_trunk = int(is_trunk[kept].sum())
    share = (kept.size - num_trunk) / max(int((~is_trunk).sum()), 1)
    scaled = scaled_capacities(caps, num_trunk, share, sub.num_blocks)
    return curve_from_hits(sub, scaled, replay_each(sub, scaled, policy)), lru_mrc(sub, scaled)


def _joined(
    caps: np.ndarray, parts: list[tuple[np.ndarray, tuple]], exact_lru: MissRatioCurve
) -> MissRatioCurve:
    """One curve over caps from each rate's part, each corrected by the exact LRU control (and the
    windows' parts by their ceiling too: corrected)."""
    block, token = np.empty(caps.size), np.empty(caps.size)
    for where, (sampled, sampled_lru, *ceiling) in parts:
        if sampled_lru is None:
            block[where], token[where] = sampled.block_hit_ratio, sampled.token_hit_ratio
            continue
        control = np.append(np.flatnonzero(where), caps.size)  # the control's last point holds every block
        part = corrected(sampled, sampled_lru, _points(exact_lru, control), *ceiling)
        block[where], token[where] = part.block_hit_ratio, part.token_hit_ratio
    return MissRatioCurve(np.asarray(caps, np.int64), block, token)


def _points(curve: MissRatioCurve, index: np.ndarray) -> MissRatioCurve:
    return MissRatioCurve(
        curve.capacity_blocks[index], curve.block_hit_ratio[index], curve.token_hit_ratio[index]
    )


def corrected(
    sampled: MissRatioCurve,
    sampled_lru: MissRatioCurve,
    exact_lru: MissRatioCurve,
    sampled_ceiling: MissRatioCurve | None = None,
) -> MissRatioCurve:
    """P_sample − LRU_sample + LRU_exact, within [0, the ceiling] (exact_lru's last point holds every
    block); the exact ceiling itself where P hits all that an unlimited cache hits over the same sample
    (sampled_ceiling, given for the windows).

    NOTE: such a cache misses only what no cache could hold, so LRU's control, whose own misses
    there are mostly capacity misses, only adds its noise: the oracle over the 100M-access scale
    trace's windows hit exactly their ceiling from 30,864 blocks on, where the control took its
    curve 0.007-0.011 below the exact one (docs/whatif.md)."""
    ratios = []
    for kind in ("block_hit_ratio", "token_hit_ratio"):
        p, lru, exact = getattr(sampled, kind), getattr(sampled_lru, kind), getattr(exact_lru, kind)
        estimate = np.clip(p - lru + exact[:-1], 0.0, exact[-1])
        if sampled_ceiling is not None:
            estimate = np.where(p >= getattr(sampled_ceiling, kind), exact[-1], estimate)
        ratios.append(estimate)
    return MissRatioCurve(exact_lru.capacity_blocks[:-1], ratios[0], ratios[1])
