"""Routers: the one registry of names and ids, and the compiled routing decision.

Scoring routers follow llm-d's EPP default profile: score = queue_weight·queue_score +
kv_weight·kv_score + prefix_weight·prefix_score, highest wins, ties → lowest pod index, with
queue_score = 1 − queue_len/max(queue_len over pods) (1 when all are 0), kv_score = 1 − KV
utilization and prefix_score = matched leading blocks / request blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from dashboard.engine.policies.dispatch import contains

ROUND_ROBIN, RANDOM, LEAST_LOADED, PREFIX, PRECISE_PREFIX, SESSION_AFFINITY, NO_HIT_LRU = range(7)
TIER_MATCH_WEIGHTS = {"gpu": 1.0, "cpu": 0.8, "disk": 0.5}  # precise_prefix; disk weight is ours


@dataclass(frozen=True)
class RouterInfo:
    """A registered router: kernel id, description and whether it keeps the EPP's approximate view."""

    name: str
    router_id: int
    description: str
    uses_view: bool = False


ROUTERS: dict[str, RouterInfo] = {
    r.name: r
    for r in (
        RouterInfo("round_robin", ROUND_ROBIN, "pods in turn"),
        RouterInfo("random", RANDOM, "uniformly random pod (seeded)"),
        RouterInfo(
            "least_loaded", LEAST_LOADED, "fewest requests waiting for prefill, then fewest in-flight blocks"
        ),
        RouterInfo(
            "prefix",
            PREFIX,
            "EPP scorer over its own approximate per-pod LRU index of routed blocks",
            uses_view=True,
        ),
        RouterInfo(
            "precise_prefix", PRECISE_PREFIX, "EPP scorer over the real caches, GPU match 1.0, CPU 0.8"
        ),
        RouterInfo("session_affinity", SESSION_AFFINITY, "consistent hash of the session id"),
        RouterInfo(
            "no_hit_lru",
            NO_HIT_LRU,
            "cold requests to the least recently used pod, else prefix scoring",
            uses_view=True,
        ),
    )
}


def router_names() -> tuple[str, ...]:
    """Names of every registered router."""
    return tuple(ROUTERS)


def router_info(name: str) -> RouterInfo:
    """The registered router called name, or a ValueError listing the known ones."""
    try:
        return ROUTERS[name]
    except KeyError:
        raise ValueError(f"unknown router {name!r}; known: {', '.join(ROUTERS)}") from None


def affinity_pods(session_keys: np.ndarray, num_pods: int, seed: int, num_vnodes: int = 64) -> np.ndarray:
    """Consistent-hash ring (num_vnodes virtual nodes per pod) lookup of each session key."""
    rng = np.random.default_rng(seed)
    points = rng.integers(0, 2**62, size=num_pods * num_vnodes, dtype=np.int64)
    owners = np.repeat(np.arange(num_pods, dtype=np.int32), num_vnodes)
    order = np.argsort(points, kind="stable")
    points, owners = points[order], owners[order]
    keys = np.asarray(session_keys, np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    hashed = (keys >> np.uint64(2)).astype(np.int64)
    idx = np.searchsorted(points, hashed, side="left") % points.shape[0]
    return owners[idx]


@njit(cache=True, _nrt=False)
def lcg_next(state: np.ndarray) -> int:
    """Advance the 64-bit LCG in state[0]; return 31 random bits."""
    state[0] = state[0] * 6364136223846793005 + 1442695040888963407
    return (state[0] >> 33) & 0x7FFFFFFF


@njit(cache=True, _nrt=False, inline="always")
def staged_match(
    st: tuple, first_cache: int, num_tiers: int, blocks: np.ndarray, tier_weight: np.ndarray
) -> float:
    """Leading blocks found tier after tier (gpu, then cpu, then disk), weighted per tier."""
    k, total = 0, 0.0
    for t in range(num_tiers):
        while k < blocks.shape[0] and contains(st, first_cache + t, blocks[k]):
            total += tier_weight[t]
            k += 1
    return total


@njit(cache=True, _nrt=False)
def array_max(values: np.ndarray) -> float:
    """Largest entry of a non-empty 1-D array (a loop: ndarray.max needs reference counting)."""
    best = values[0]
    for v in values:
        best = max(best, v)
    return best


@njit(cache=True, _nrt=False)
def score_pods(
    matched: np.ndarray, m: int, weights: np.ndarray, queue_len: np.ndarray, kv_util: np.ndarray
) -> int:
    """EPP weighted score; highest wins, ties → lowest pod index."""
    max_q = array_max(queue_len)
    best, best_score = 0, -1e300
    for p in range(matched.shape[0]):
        qs = 1.0 - queue_len[p] / max_q if max_q > 0 else 1.0
        ps = matched[p] / m if m > 0 else 0.0
        s = weights[0] * qs + weights[1] * (1.0 - kv_util[p]) + weights[2] * ps
        if s > best_score:
            best, best_score = p, s
    return best
