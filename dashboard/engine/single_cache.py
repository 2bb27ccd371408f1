"""One cache replayed alone, for every policy but LRU (which has its own kernel) and the learned
policy (whose scores and block rules live in the cluster kernel).

The cluster kernel reaches these policies through one out-of-line call per access that passes
the whole CacheState flattened (dispatch.py): on the Mooncake conversation trace a FIFO cache took
20 ms that way. Here each policy's hit / insert / evict is called straight from the loop, where
LLVM inlines them: 2 ms for FIFO, 9-11 ms for S3-FIFO and ARC. The semantics are the cluster
kernel's for one pod and one tier (serve_request): the request's hit is its longest resident
prefix, then its blocks are visited tail first, one tick each, a resident block touched and an
absent one inserted, the policy's victim evicted when that puts the cache over capacity; the oracle
reads each access's next use (next_use[k], written to info.next_use first, as the cluster kernel's
refresh does). Every sweep,
sampled curve and capacity search of these policies runs here; a test holds it to the cluster
kernel hit for hit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.engine.policies import arc, fifo, lfu, oracle, s3fifo
from dashboard.engine.policies.dispatch import contains, size

# The policies this kernel runs (replay.replay_single_cache sends them here)
POLICY_IDS = (fifo.POLICY_ID, lfu.POLICY_ID, s3fifo.POLICY_ID, arc.POLICY_ID, oracle.POLICY_ID)


@njit(cache=True, _nrt=False)
def replay_policy_single(
    offsets: np.ndarray,
    block_ids: np.ndarray,
    next_use: np.ndarray,
    st: tuple,
    info: tuple,
    policy_id: int,
    hits: np.ndarray,
) -> None:
    """hits[i] = request i's prefix-hit blocks in cache 0 of st (capacity st.cap[0]) under policy_id;
    next_use holds each access's next using request for the oracle (empty for the others)."""
    if policy_id not in POLICY_IDS:
        raise ValueError("replay_policy_single: policy not run by this kernel")
    tick = 0
    for i in range(offsets.shape[0] - 1):
        lo, hi = offsets[i], offsets[i + 1]
        h = 0
        while lo + h < hi and contains(st, 0, block_ids[lo + h]):
            h += 1
        hits[i] = h
        for k in range(hi - 1, lo - 1, -1):
            b = block_ids[k]
            tick += 1
            if policy_id == oracle.POLICY_ID:
                info.next_use[b] = next_use[k]
            resident = contains(st, 0, b)
            _access(st, b, tick, info, policy_id, resident)
            if not resident and size(st, 0) > st.cap[0]:
                _evict(st, policy_id)


@njit(cache=True, _nrt=False, inline="always")
def _access(st: tuple, b: int, tick: int, info: tuple, policy_id: int, resident: bool) -> None:
    """Touch b when resident, else insert it (the caller evicts when the cache is then over capacity)."""
    if policy_id == fifo.POLICY_ID:
        if resident:
            fifo.hit(st, 0, b, tick, info)
        else:
            fifo.insert(st, 0, b, tick, info)
    elif policy_id == lfu.POLICY_ID:
        if resident:
            lfu.hit(st, 0, b, tick, info)
        else:
            lfu.insert(st, 0, b, tick, info)
    elif policy_id == s3fifo.POLICY_ID:
        if resident:
            s3fifo.hit(st, 0, b, tick, info)
        else:
            s3fifo.insert(st, 0, b, tick, info)
    elif policy_id == arc.POLICY_ID:
        if resident:
            arc.hit(st, 0, b, tick, info)
        else:
            arc.insert(st, 0, b, tick, info)
    elif policy_id == oracle.POLICY_ID:
        if resident:
            oracle.hit(st, 0, b, tick, info)
        else:
            oracle.insert(st, 0, b, tick, info)


@njit(cache=True, _nrt=False, inline="always")
def _evict(st: tuple, policy_id: int) -> None:
    if policy_id == fifo.POLICY_ID:
        fifo.evict(st, 0)
    elif policy_id == lfu.POLICY_ID:
        lfu.evict(st, 0)
    elif policy_id == s3fifo.POLICY_ID:
        s3fifo.evict(st, 0)
    elif policy_id == arc.POLICY_ID:
        arc.evict(st, 0)
    elif policy_id == oracle.POLICY_ID:
        oracle.evict(st, 0)
