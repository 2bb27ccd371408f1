"""One cache replayed alone, for every policy but LRU (which has its own kernel) and the learned
policy (whose scores and block rules live in the cluster kernel).

The cluster kernel reaches these policies through one out-of-line call per access that passes
the whole CacheState flattened (dispatch.py): on the Mooncake conversation trace a FIFO cache took
20 ms that way. Here dispatch.py's per-policy branches (policy_hit, policy_insert, policy_evict)
are inlined into the loop: 2 ms for FIFO, 9-11 ms for S3-FIFO and ARC. The semantics are the
cluster kernel's for one pod and one tier (serve_request): the request's hit is its longest
resident prefix, then its blocks are visited tail first, one tick each, a resident block touched
and an absent one inserted, the policy's victim evicted when that puts the cache over capacity;
the oracle reads each access's next use (next_use[k], written to info.next_use first, as the
cluster kernel's refresh does). Every sweep, sampled curve and capacity search of these policies
runs here; a test holds it to the cluster kernel hit for hit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.engine.policies import arc, fifo, lfu, oracle, s3fifo
from dashboard.engine.policies.dispatch import contains, policy_evict, policy_hit, policy_insert, size

# The policies this kernel runs (replay.replay_single_cache sends them here)
POLICY_IDS = (fifo.POLICY_ID, lfu.POLICY_ID, s3fifo.POLICY_ID, arc.POLICY_ID, oracle.POLICY_ID)


@njit(cache=True, _nrt=False, nogil=True)  # NOTE: nogil: curves replay capacities on threads
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
            if contains(st, 0, b):
                policy_hit(st, 0, b, tick, info, policy_id)
                continue
            policy_insert(st, 0, b, tick, info, policy_id)
            if size(st, 0) > st.cap[0]:
                policy_evict(st, 0, policy_id)
