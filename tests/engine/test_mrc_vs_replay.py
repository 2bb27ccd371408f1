"""The one-pass LRU curve equals individual replays (single cache and one-pod cluster) at every point."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.core.config import usable_cores
from dashboard.core.types import ClusterConfig, RouterConfig, TierConfig
from dashboard.engine.mrc import default_capacities, lru_mrc, policy_mrc, replay_each
from dashboard.engine.policies import policy_names
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import block_hit_ratio, replay_single_cache, simulate

CAPACITIES = np.array([0, 1, 500, 1_827, 9_139, 18_279, 45_697, 182_790, 400_000])


@pytest.fixture(scope="module")
def conversation(mooncake_conversation):
    return read_mooncake(mooncake_conversation)


def test_curve_equals_single_cache_lru_replays_at_every_point(conversation):
    curve = lru_mrc(conversation, CAPACITIES)
    for capacity, ratio, token_ratio in zip(
        CAPACITIES, curve.block_hit_ratio, curve.token_hit_ratio, strict=True
    ):
        hits = replay_single_cache(conversation, int(capacity), "lru")
        assert ratio == block_hit_ratio(hits, conversation)
        cached = np.minimum(hits.astype(np.int64) * conversation.block_tokens, conversation.input_tokens)
        assert token_ratio == pytest.approx(cached.sum() / conversation.input_tokens.sum(), abs=1e-12)


def test_a_curve_over_some_requests_equals_replays_counted_there(conversation):
    # Every request touches the cache; only every third one counts (the windows' warm-ups, mrc_windows.py).
    counted = np.arange(conversation.num_requests) % 3 == 0
    curve = lru_mrc(conversation, CAPACITIES, counted=counted)
    prompt = conversation.input_tokens[counted]
    for capacity, ratio, token_ratio in zip(
        CAPACITIES, curve.block_hit_ratio, curve.token_hit_ratio, strict=True
    ):
        hits = replay_single_cache(conversation, int(capacity), "lru")[counted].astype(np.int64)
        assert ratio == hits.sum() / np.diff(conversation.offsets)[counted].sum()
        assert token_ratio == np.minimum(hits * conversation.block_tokens, prompt).sum() / prompt.sum()
    assert lru_mrc(conversation, CAPACITIES).block_hit_ratio[3] != curve.block_hit_ratio[3]
    with pytest.raises(ValueError, match="one flag per request"):
        lru_mrc(conversation, CAPACITIES, counted=counted[1:])


def test_curve_equals_one_pod_cluster_replays(conversation):
    caps = np.array([1_827, 18_279])
    curve = lru_mrc(conversation, caps)
    for capacity, ratio in zip(caps, curve.block_hit_ratio, strict=True):
        config = ClusterConfig(
            num_pods=1, tiers=(TierConfig("gpu", int(capacity)),), router=RouterConfig("round_robin")
        )
        outcome = simulate(conversation, config)
        assert outcome.hit_blocks.sum() / conversation.num_block_accesses == ratio


def test_default_grid_holds_the_reference_points_and_spans_the_unique_blocks(conversation):
    grid = default_capacities(conversation.num_blocks)
    assert {1_827, 9_139, 18_279, 45_697, 91_395, 182_790} <= set(grid.tolist())
    assert grid[0] == 182 and grid[-1] == 182_790


@pytest.mark.parametrize("policy", [p for p in policy_names() if p != "lru"])
def test_threaded_curve_equals_replays_one_after_another(conversation, policy):
    """replay_each runs capacities on a thread per core, several cache states of one shape at once."""
    caps = np.array([0, 700, 1_827, 2_500, 9_139, 18_279])
    assert usable_cores() > 1, "one core: the threads would not overlap"
    threaded = replay_each(conversation, caps, policy)
    for capacity, hits in zip(caps, threaded, strict=True):
        assert hits.tolist() == replay_single_cache(conversation, int(capacity), policy).tolist(), capacity
    assert policy_mrc(conversation, policy, caps, num_threads=2).block_hit_ratio.tolist() == [
        block_hit_ratio(h, conversation) for h in threaded
    ]


@pytest.mark.parametrize("num_threads", [1, 2])
def test_each_replay_reports_once_when_it_ends(conversation, num_threads):
    caps = np.array([0, 700, 1_827])
    ended: list[int] = []
    replay_each(conversation, caps, "s3fifo", num_threads, on_replayed=lambda: ended.append(1))
    assert len(ended) == caps.size
