"""The prefix router's view is the plain LRU it stands for: kept as the top tier's victim list (views.py)
when that tier is LRU, as its own cache otherwise."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

from dashboard.core.types import ClusterConfig, ClusterEvent, RouterConfig, TierConfig, Trace
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import cache_snapshots, simulate

RESTART_S, RESTARTED_POD = 1_800.0, 1


@pytest.fixture(scope="module")
def conversation(mooncake_conversation) -> Trace:
    return read_mooncake(mooncake_conversation)


def plain_lru_view(trace: Trace, pods: np.ndarray, pod: int, capacity: int) -> tuple[int, ...]:
    """What llm-d's index holds: every block routed to pod, tail first, in one LRU; oldest first."""
    lru: OrderedDict = OrderedDict()
    restarted = pod != RESTARTED_POD
    for i in np.flatnonzero(pods == pod):
        if not restarted and trace.arrival_s[i] >= RESTART_S:  # the view only changes when it is routed to
            lru.clear()
            restarted = True
        for b in trace.block_ids[trace.offsets[i] : trace.offsets[i + 1]][::-1].tolist():
            lru[b] = None
            lru.move_to_end(b)
            if len(lru) > capacity:
                lru.popitem(last=False)
    return tuple(lru)


@pytest.mark.parametrize("gpu_policy", ["lru", "s3fifo"])
@pytest.mark.parametrize("gpu_blocks", [0, 300, 900])
@pytest.mark.parametrize("router", ["prefix", "no_hit_lru"])
def test_the_view_holds_what_a_plain_lru_of_every_tier_would(
    conversation, gpu_blocks, router, gpu_policy
) -> None:
    config = ClusterConfig(
        num_pods=3,
        tiers=(TierConfig("gpu", gpu_blocks, gpu_policy), TierConfig("cpu", 600, "s3fifo")),
        router=RouterConfig(router),
    )
    restart = (ClusterEvent(RESTART_S, "restart", pod=RESTARTED_POD),)
    pods = simulate(conversation, config, restart).pod
    views = cache_snapshots(conversation, config, restart)[3 * 2 :]
    for pod, view in enumerate(views):
        want = plain_lru_view(conversation, pods, pod, gpu_blocks + 600)
        assert view.lists[0] == want  # the same blocks in the same recency order
        assert [b for b, *_ in view.blocks] == sorted(want)
        assert view.counts[0] == len(want)
