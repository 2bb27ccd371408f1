"""LFU's replay of one cache through the single-cache kernel and its lazy heap: the reference the
heap-free replay (policies/lfu.replay_lfu_single) is held to, and the sweep bench_replay times it against."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dashboard.core.config import usable_cores
from dashboard.core.types import Trace
from dashboard.engine.policies import POLICIES
from dashboard.engine.policies.state_pool import give_back
from dashboard.engine.replay import _block_info, _state
from dashboard.engine.single_cache import replay_policy_single


def heap_replay(trace: Trace, capacity: int) -> np.ndarray:
    """The prefix hits (int32 per request) of one LFU cache of capacity blocks, through the heap."""
    hits = np.zeros(trace.num_requests, np.int32)
    st = _state(trace, [capacity], ["lfu"])
    replay_policy_single(
        trace.offsets,
        trace.block_ids,
        np.zeros(0, np.int64),
        st,
        _block_info(trace, False),
        POLICIES["lfu"].policy_id,
        hits,
    )
    give_back(st)  # NOTE: as replay_single_cache does: the next replay's state reuses its arrays
    return hits


def heap_sweep(trace: Trace, capacities: np.ndarray) -> list[np.ndarray]:
    """heap_replay at each capacity on a thread per core, as mrc.replay_each runs LFU's sweep now."""
    with ThreadPoolExecutor(usable_cores()) as pool:
        return list(pool.map(lambda c: heap_replay(trace, int(c)), capacities))
