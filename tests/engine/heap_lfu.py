"""LFU's replay of one cache through the single-cache kernel and its lazy heap: the reference the
heap-free replay (policies/lfu.replay_lfu_single) is held to, and the sweep bench_replay times it against."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dashboard.core.config import usable_cores
from dashboard.core.types import Trace
from dashboard.engine.replay import replay_in_single_kernel


def heap_replay(trace: Trace, capacity: int) -> np.ndarray:
    """The prefix hits (int32 per request) of one LFU cache of capacity blocks, through the heap."""
    return replay_in_single_kernel(trace, capacity, "lfu")


def heap_sweep(trace: Trace, capacities: np.ndarray) -> list[np.ndarray]:
    """heap_replay at each capacity on a thread per core, as mrc.replay_each runs LFU's sweep now."""
    with ThreadPoolExecutor(usable_cores()) as pool:
        return list(pool.map(lambda c: heap_replay(trace, int(c)), capacities))
