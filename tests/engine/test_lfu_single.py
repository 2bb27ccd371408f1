"""LFU's heap-free replay of one cache (policies/lfu.replay_lfu_single) hits what the heap's replay
(single_cache.py) hits, request for request, on the real traces and on random chained ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from dashboard.core.config import SAMPLE_TRACE
from dashboard.core.types import Trace
from dashboard.engine.mrc import default_capacities
from dashboard.engine.policies.lfu import replay_lfu_single
from dashboard.engine.readers import read_trace
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import replay_single_cache
from tests.engine.gen import chained_traces, trace_from_paths
from tests.engine.heap_lfu import heap_replay


def fast_replay(trace: Trace, capacity: int) -> np.ndarray:
    return replay_lfu_single(trace.offsets, trace.block_ids, trace.num_blocks, capacity)


@pytest.mark.parametrize("name", ["conversation", "synthetic", "sample"])
def test_the_same_hits_as_the_heap_at_every_capacity_of_the_real_traces(
    name, mooncake_conversation, mooncake_synthetic
):
    paths = {"conversation": mooncake_conversation, "synthetic": mooncake_synthetic}
    trace = read_mooncake(paths[name]) if name in paths else read_trace(SAMPLE_TRACE)
    caps = np.concatenate([[0, 1, 2, 7, 50], default_capacities(trace.num_blocks), [trace.num_blocks + 9]])
    for capacity in caps.tolist():
        np.testing.assert_array_equal(
            fast_replay(trace, capacity), heap_replay(trace, capacity), str(capacity)
        )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chained_traces())
def test_the_same_hits_as_the_heap_on_random_chained_traces(trace: Trace):
    for capacity in range(trace.num_blocks + 2):
        np.testing.assert_array_equal(fast_replay(trace, capacity), heap_replay(trace, capacity))


def test_a_block_read_twice_in_one_request_and_a_full_cache_of_kept_blocks():
    trace = trace_from_paths([[1, 2], [1, 2], [3, 5, 4, 5], [1, 2, 6], [6], [3, 5]])
    for capacity in range(trace.num_blocks + 2):
        np.testing.assert_array_equal(fast_replay(trace, capacity), heap_replay(trace, capacity))
    # NOTE: at 2 blocks, 1 and 2 are kept from request 1 on and fill the cache: every new block
    # passes straight through
    assert fast_replay(trace, 2).tolist() == [0, 2, 0, 2, 0, 0]
    # at 4, request 2 keeps block 5 on its second read (absent when the request began) and evicts
    # 4, then 3; 6 is kept on its second request; 3 passes through in the last
    assert fast_replay(trace, 4).tolist() == [0, 2, 0, 2, 1, 0]


def test_replay_single_cache_takes_the_heap_free_path(mooncake_conversation):
    trace = read_mooncake(mooncake_conversation)
    np.testing.assert_array_equal(replay_single_cache(trace, 1_000, "lfu"), heap_replay(trace, 1_000))
