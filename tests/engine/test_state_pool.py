"""A pooled cache state is handed back empty, and a replay on it equals one on a fresh state."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.core.types import ClusterConfig, ClusterEvent, RouterConfig, TierConfig
from dashboard.engine.policies import policy_names, state_pool
from dashboard.engine.policies.state import NUM_LISTS, make_state, wipe_is_cheaper
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import simulate


@pytest.fixture(scope="module")
def conversation(mooncake_conversation):
    return read_mooncake(mooncake_conversation)


def cluster(policy: str) -> ClusterConfig:
    # Every kind of cache at once: HBM under the policy, a CPU tier under S3-FIFO (ghosts), the
    # prefix router's LRU views; small enough that every cache fills and evicts.
    return ClusterConfig(
        num_pods=3,
        tiers=(TierConfig("gpu", 700, policy), TierConfig("cpu", 1_400, "s3fifo")),
        router=RouterConfig("prefix"),
    )


def outcome_arrays(out) -> list[np.ndarray]:
    return [out.pod, out.hit_blocks, out.cached_tokens, out.ttft_s, out.stored_blocks]


@pytest.fixture(params=["walk", "wipe"])
def reset_by(request, monkeypatch) -> str:
    """Both ways a handed-back state is emptied, whichever the state's size would pick."""
    monkeypatch.setattr(state_pool, "wipe_is_cheaper", lambda st: request.param == "wipe")
    return request.param


@pytest.mark.parametrize("policy", policy_names())
def test_a_replay_on_a_reused_state_equals_one_on_a_fresh_state(conversation, policy, reset_by) -> None:
    config = cluster(policy)
    restart = (ClusterEvent(1_800.0, "restart", pod=1),)
    state_pool.clear()
    fresh = simulate(conversation, config, restart)
    before = dict(state_pool.stats)
    again = simulate(conversation, config, restart)  # on the state the first replay handed back
    assert state_pool.stats["reused"] == before["reused"] + 1
    for a, b in zip(outcome_arrays(fresh), outcome_arrays(again), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("policy", policy_names())
def test_a_handed_back_state_is_as_empty_as_a_new_one(conversation, policy, reset_by) -> None:
    state_pool.clear()
    simulate(conversation, cluster(policy))
    (st,) = state_pool._pool.values()
    new = make_state(st.cap, st.pol, st.where.shape[0], st.hk1.shape[1], st.k1.shape[1])
    assert not st.where.any()  # no block held or remembered, by any cache
    for name in ("lsize", "hsize", "param"):
        np.testing.assert_array_equal(getattr(st, name), getattr(new, name))
    base = st.where.shape[0]
    np.testing.assert_array_equal(st.link[:, base : base + NUM_LISTS], new.link[:, base : base + NUM_LISTS])


def test_a_state_over_the_cap_is_not_kept(conversation, monkeypatch) -> None:
    state_pool.clear()
    monkeypatch.setattr(state_pool, "MAX_POOLED_BYTES", 1024)
    simulate(conversation, cluster("lru"))
    assert not state_pool._pool


def test_the_flag_table_is_zeroed_whole_only_when_the_caches_hold_much_of_it(
    conversation, monkeypatch
) -> None:
    decided = []

    def deciding(st) -> bool:
        decided.append(wipe_is_cheaper(st))
        return decided[-1]

    monkeypatch.setattr(state_pool, "wipe_is_cheaper", deciding)
    eight_pods = ClusterConfig(
        num_pods=8, tiers=(TierConfig("gpu", 2_284), TierConfig("cpu", 4_569)), router=RouterConfig("prefix")
    )
    simulate(conversation, eight_pods)  # 110k members in a 4.4 MB flag table: zeroed whole
    simulate(conversation, ClusterConfig(num_pods=1, tiers=(TierConfig("gpu", 100),)))  # 100 in 183k: walked
    assert decided == [True, False]
