"""Reuse emptied cache states between replays instead of allocating zeroed ones each time.

A state's arrays are sized by the trace's block universe (24 caches × 182k blocks is ~40 MB on
the conversation trace), and a fresh one is paid for in page faults and zeroing as the replay
first touches it: 3.7 ms of a 16 ms 8-pod replay. A replay done with its state empties it in
O(what the caches hold), or zeroes its flag table where that is cheaper (`reset_state`), and
leaves it here; the next replay of the same shape (the What-if page, a sweep, a capacity search)
takes it back. Small states only: one at 10^7 blocks would hold gigabytes between replays.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict

import numpy as np

from dashboard.engine.policies.state import CacheState, make_state, reset_state, wipe_is_cheaper

MAX_POOLED_BYTES = 256 * 1024 * 1024  # all pooled states together
_lock = threading.Lock()
# NOTE: keyed (shape, serial), oldest first: a curve replays on a thread per core (mrc.replay_each),
# so several states of one shape are in use at once and come back
_pool: OrderedDict[tuple, CacheState] = OrderedDict()
_serial = itertools.count()
stats = {"taken": 0, "reused": 0}  # for tests and benchmarks


def take_state(
    capacities: np.ndarray, policy_ids: np.ndarray, num_blocks: int, heap_slots: int, key_blocks: int
) -> CacheState:
    """An empty state of this shape: a pooled one when there is one, else a new one (make_state)."""
    shape = (int(capacities.shape[0]), num_blocks, heap_slots, key_blocks)
    with _lock:
        stats["taken"] += 1
        key = next((k for k in reversed(_pool) if k[0] == shape), None)
        st = None if key is None else _pool.pop(key)
        if st is not None:
            stats["reused"] += 1
    if st is None:
        return make_state(capacities, policy_ids, num_blocks, heap_slots, key_blocks)
    st.cap[:] = capacities
    st.pol[:] = policy_ids
    return st


def give_back(st: CacheState) -> None:
    """Empty st and keep it for the next replay of its shape (the oldest kept ones go past the cap)."""
    size = _nbytes(st)
    if size > MAX_POOLED_BYTES:
        return
    reset_state(st, wipe_is_cheaper(st))
    shape = (int(st.cap.shape[0]), int(st.where.shape[0]), int(st.hk1.shape[1]), int(st.k1.shape[1]))
    with _lock:
        _pool[shape, next(_serial)] = st
        while sum(_nbytes(kept) for kept in _pool.values()) > MAX_POOLED_BYTES:
            _pool.popitem(last=False)


def clear() -> None:
    """Drop every pooled state."""
    with _lock:
        _pool.clear()


def _nbytes(st: CacheState) -> int:
    return sum(int(a.nbytes) for a in st)
