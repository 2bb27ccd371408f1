"""One entry point per cache operation, dispatched on the cache's integer policy id.

Every policy module exposes hit / insert / evict kernels over a CacheState row; this module picks
the one for cache c so the cluster kernel compiles once for any mix of policies per tier.
`info` is a BlockInfo of global per-block keys the kernel refreshes before each access:
`score` (learned key), `next_use` (oracle: next request index using the block, n if never) and
`tie` (−(depth·2³¹ + block id): smaller means deeper, used by the heap policies' tie-break).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.engine.policies import arc, fifo, learned, lfu, lru, oracle, s3fifo
from dashboard.engine.policies.state import MAIN, SMALL, CacheState


@njit(cache=True, _nrt=False, inline="always")
def contains(st: CacheState, c: int, b: int) -> bool:
    """Whether block b is resident in cache c (ghost keys are not)."""
    w = st.where[b, c]
    return w == 1 or w == 2


@njit(cache=True, _nrt=False, inline="always")
def size(st: CacheState, c: int) -> int:
    """Resident blocks of cache c."""
    return st.lsize[c, MAIN] + st.lsize[c, SMALL]


# NOTE: touch and insert are inlined into the kernels with LRU (vLLM's policy) inline too; every
# other policy sits behind one out-of-line call. A call passes the whole CacheState flattened
# (over a hundred arguments), which cost the cluster kernel most of its time per access.
@njit(cache=True, _nrt=False, inline="always")
def touch(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    """Record a hit on resident block b."""
    p = st.pol[c]
    if p == lru.POLICY_ID:
        lru.hit(st, c, b, tick, info)
    else:
        _touch_other(st, c, b, tick, info)


@njit(cache=True, _nrt=False, inline="always")
def run_start(st: CacheState, c: int, blocks: np.ndarray, k: int) -> int:
    """First index j of the run blocks[j..k] that touch_run may touch at once (k for every policy but LRU)."""
    if st.pol[c] == lru.POLICY_ID:
        return lru.run_start(st, c, blocks, k)
    return k


@njit(cache=True, _nrt=False, inline="always")
def touch_run(st: CacheState, c: int, blocks: np.ndarray, j: int, k: int, tick: int, info: tuple) -> None:
    """Record hits on resident blocks[k], blocks[k-1], … blocks[j] in that order (j from run_start)."""
    if st.pol[c] == lru.POLICY_ID:
        lru.hit_run(st, c, blocks, j, k)
    else:
        _touch_other(st, c, blocks[k], tick, info)


@njit(cache=True, _nrt=False)
def _touch_other(st: CacheState, c: int, b: int, tick: int, info: tuple) -> None:
    policy_hit(st, c, b, tick, info, st.pol[c])


@njit(cache=True, _nrt=False)
def _evict_other(st: CacheState, c: int) -> int:
    return policy_evict(st, c, st.pol[c])


# NOTE: one branch per policy but LRU, inlined where they are called: behind the out-of-line
# wrappers above for the cluster kernel, straight into single_cache.py's loop.
@njit(cache=True, _nrt=False, inline="always")
def policy_hit(st: CacheState, c: int, b: int, tick: int, info: tuple, p: int) -> None:
    """Policy p's record of a hit on resident block b of cache c."""
    if p == fifo.POLICY_ID:
        fifo.hit(st, c, b, tick, info)
    elif p == lfu.POLICY_ID:
        lfu.hit(st, c, b, tick, info)
    elif p == s3fifo.POLICY_ID:
        s3fifo.hit(st, c, b, tick, info)
    elif p == oracle.POLICY_ID:
        oracle.hit(st, c, b, tick, info)
    elif p == arc.POLICY_ID:
        arc.hit(st, c, b, tick, info)
    elif p == learned.POLICY_ID:
        learned.hit(st, c, b, tick, info)
    else:
        raise ValueError("unknown policy id")  # configs are validated; a new policy needs a branch


@njit(cache=True, _nrt=False, inline="always")
def policy_insert(st: CacheState, c: int, b: int, tick: int, info: tuple, p: int) -> None:
    """Policy p's insert of absent block b into cache c (the caller evicts when over capacity)."""
    if p == fifo.POLICY_ID:
        fifo.insert(st, c, b, tick, info)
    elif p == lfu.POLICY_ID:
        lfu.insert(st, c, b, tick, info)
    elif p == s3fifo.POLICY_ID:
        s3fifo.insert(st, c, b, tick, info)
    elif p == oracle.POLICY_ID:
        oracle.insert(st, c, b, tick, info)
    elif p == arc.POLICY_ID:
        arc.insert(st, c, b, tick, info)
    elif p == learned.POLICY_ID:
        learned.insert(st, c, b, tick, info)
    else:
        raise ValueError("unknown policy id")


@njit(cache=True, _nrt=False, inline="always")
def policy_evict(st: CacheState, c: int, p: int) -> int:
    """Policy p's victim in cache c, removed and returned."""
    if p == fifo.POLICY_ID:
        return fifo.evict(st, c)
    if p == lfu.POLICY_ID:
        return lfu.evict(st, c)
    if p == s3fifo.POLICY_ID:
        return s3fifo.evict(st, c)
    if p == oracle.POLICY_ID:
        return oracle.evict(st, c)
    if p == arc.POLICY_ID:
        return arc.evict(st, c)
    if p == learned.POLICY_ID:
        return learned.evict(st, c)
    raise ValueError("unknown policy id")


@njit(cache=True, _nrt=False, inline="always")
def insert(st: CacheState, c: int, b: int, tick: int, info: tuple) -> int:
    """Insert absent block b; return the block evicted to stay within capacity, or -1."""
    p = st.pol[c]
    if p == lru.POLICY_ID:
        lru.insert(st, c, b, tick, info)
        return lru.evict(st, c) if st.lsize[c, MAIN] > st.cap[c] else -1
    return _insert_other(st, c, b, tick, info)


@njit(cache=True, _nrt=False)
def _insert_other(st: CacheState, c: int, b: int, tick: int, info: tuple) -> int:
    policy_insert(st, c, b, tick, info, st.pol[c])
    if size(st, c) > st.cap[c]:
        return _evict_other(st, c)
    return -1


@njit(cache=True, _nrt=False)
def rescore(st: CacheState, c: int, b: int, info: tuple) -> None:
    """Tell cache c that block b's score in info changed (only the learned policy keys on it)."""
    p = st.pol[c]
    if p == learned.POLICY_ID:
        learned.rescore(st, c, b, info)
    elif p in (
        lru.POLICY_ID,
        fifo.POLICY_ID,
        lfu.POLICY_ID,
        s3fifo.POLICY_ID,
        oracle.POLICY_ID,
        arc.POLICY_ID,
    ):
        return
    else:
        raise ValueError("unknown policy id")


@njit(cache=True, _nrt=False, inline="always")
def access(st: CacheState, c: int, b: int, tick: int, info: tuple) -> int:
    """Touch b if resident, else insert it; return the evicted block or -1."""
    if contains(st, c, b):
        touch(st, c, b, tick, info)
        return -1
    return insert(st, c, b, tick, info)


def block_tie_keys(offsets: np.ndarray, block_ids: np.ndarray, num_blocks: int) -> np.ndarray:
    """Tie key per block: −(depth·2³¹ + id), depth = the block's position in its prefix chain."""
    depth = np.zeros(num_blocks, np.int64)
    positions = np.arange(block_ids.shape[0], dtype=np.int64) - np.repeat(offsets[:-1], np.diff(offsets))
    depth[block_ids] = positions
    return -(depth * (1 << 31) + np.arange(num_blocks, dtype=np.int64))


@njit(cache=True)
def next_use_of_accesses(offsets: np.ndarray, block_ids: np.ndarray, num_blocks: int) -> np.ndarray:
    """For each access, the index of the next request that uses the same block (n if none)."""
    n = offsets.shape[0] - 1
    last = np.full(num_blocks, n, np.int64)
    out = np.empty(block_ids.shape[0], np.int64)
    for i in range(n - 1, -1, -1):
        for k in range(offsets[i], offsets[i + 1]):
            out[k] = last[block_ids[k]]
        for k in range(offsets[i], offsets[i + 1]):
            last[block_ids[k]] = i
    return out
