"""Golden figures on the real Mooncake conversation trace (reference values from its README)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dashboard.core.types import ClusterConfig, RouterConfig, TierConfig, Trace
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import block_hit_ratio, replay_single_cache, simulate


@pytest.fixture(scope="module")
def conversation(mooncake_conversation: Path) -> Trace:
    return read_mooncake(mooncake_conversation)


def test_one_lru_cache_of_18279_blocks_hits_0_278912(conversation: Trace) -> None:
    hits = replay_single_cache(conversation, 18_279, "lru")
    assert round(block_hit_ratio(hits, conversation), 6) == 0.278912


def test_unlimited_lru_cache_hits_0_366412(conversation: Trace) -> None:
    hits = replay_single_cache(conversation, conversation.num_blocks, "lru")
    assert round(block_hit_ratio(hits, conversation), 6) == 0.366412


def test_four_pods_round_robin_with_4569_blocks_each_hit_0_116943(conversation: Trace) -> None:
    config = ClusterConfig(num_pods=4, tiers=(TierConfig("gpu", 4_569),), router=RouterConfig("round_robin"))
    outcome = simulate(conversation, config)
    assert round(block_hit_ratio(outcome.hit_blocks.sum(axis=1), conversation), 6) == 0.116943


def test_simulate_with_one_pod_matches_the_single_cache_fast_path(conversation: Trace) -> None:
    config = ClusterConfig(num_pods=1, tiers=(TierConfig("gpu", 18_279),), router=RouterConfig("round_robin"))
    outcome = simulate(conversation, config)
    np.testing.assert_array_equal(outcome.hit_blocks[:, 0], replay_single_cache(conversation, 18_279))


def test_oracle_hits_at_least_as_much_as_lru_at_equal_capacity(conversation: Trace) -> None:
    for capacity in (1_827, 18_279):
        lru = block_hit_ratio(replay_single_cache(conversation, capacity, "lru"), conversation)
        oracle = block_hit_ratio(replay_single_cache(conversation, capacity, "oracle"), conversation)
        assert oracle >= lru


def test_prefix_router_load_terms_prevent_the_block_zero_pile_up(conversation: Trace) -> None:
    def imbalance(router: RouterConfig) -> float:
        config = ClusterConfig(num_pods=4, tiers=(TierConfig("gpu", 4_569),), router=router)
        counts = np.bincount(simulate(conversation, config).pod, minlength=4)
        return float(counts.max() / counts.mean())

    assert imbalance(RouterConfig("prefix")) < 1.2
    assert imbalance(RouterConfig("prefix", queue_weight=0.0, kv_weight=0.0, prefix_weight=1.0)) > 3.9


def test_the_synthetic_traces_readme_figures(mooncake_synthetic: Path) -> None:
    # NOTE: tests/data/traces/mooncake-fast25/README.md's synthetic table, through the same engine
    trace = read_mooncake(mooncake_synthetic)
    assert (trace.num_requests, trace.num_block_accesses, trace.num_blocks) == (3_993, 121_877, 43_924)
    assert block_hit_ratio(replay_single_cache(trace, 4_392, "lru"), trace) == pytest.approx(0.2623, abs=5e-5)
    assert block_hit_ratio(replay_single_cache(trace, 4_392, "oracle"), trace) == pytest.approx(
        0.5063, abs=5e-5
    )
    assert block_hit_ratio(replay_single_cache(trace, 43_924, "lru"), trace) == pytest.approx(
        0.6396, abs=5e-5
    )
