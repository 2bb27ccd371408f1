"""Hand-worked tiny traces for the documented replay rules."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dashboard.core.types import ClusterConfig, ClusterEvent, RouterConfig, TierConfig
from dashboard.engine.latency import latency_model
from dashboard.engine.policies import POLICIES, policy_info, policy_names
from dashboard.engine.policies.learned import LearnedOptions
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import learned_request_keys, replay_single_cache, simulate
from dashboard.engine.routers import router_names
from dashboard.engine.sessions import session_structure
from tests.engine.gen import trace_from_paths


def one_pod(*tiers: TierConfig, offload: bool = True) -> ClusterConfig:
    return ClusterConfig(num_pods=1, tiers=tiers, router=RouterConfig("round_robin"), enable_offload=offload)


def test_hit_stops_at_first_missing_block() -> None:
    # request 2 has blocks 0, 1 cached but 5 absent, so 2 (though cached) does not count
    trace = trace_from_paths([[0, 1, 2], [0, 1, 5, 2]])
    assert replay_single_cache(trace, 10).tolist() == [0, 2]


def test_tail_first_touch_makes_the_tail_the_lru_victim() -> None:
    # capacity 2: after [0, 1] the tail 1 is older than the head 0, so inserting 2 evicts 1
    trace = trace_from_paths([[0, 1], [2], [0, 1]])
    assert replay_single_cache(trace, 2).tolist() == [0, 0, 1]


def test_unlimited_capacity_hits_every_repeat() -> None:
    trace = trace_from_paths([[0, 1, 2], [0, 1, 2], [0, 3]])
    assert replay_single_cache(trace, 10**9).tolist() == [0, 3, 1]


def test_gpu_eviction_demotes_to_cpu_and_a_cpu_hit_is_promoted() -> None:
    trace = trace_from_paths([[0, 1], [2, 3], [0, 1], [0, 1]])
    out = simulate(trace, one_pod(TierConfig("gpu", 2), TierConfig("cpu", 4)))
    assert out.stored_blocks.tolist() == [0, 2, 2, 0]  # request 2 demotes 2, 3 while promoting 0, 1
    assert out.hit_blocks[2].tolist() == [0, 2, 0]  # served from cpu
    assert out.hit_blocks[3].tolist() == [2, 0, 0]  # promoted to gpu by request 2
    assert out.cached_tokens[2].tolist() == [0, 7, 0]  # input is 7 tokens
    assert out.load_s[2] > 0.0 and out.load_s[3] == 0.0


def test_without_offload_evicted_blocks_are_lost() -> None:
    trace = trace_from_paths([[0, 1], [2, 3], [0, 1]])
    out = simulate(trace, one_pod(TierConfig("gpu", 2), TierConfig("cpu", 4), offload=False))
    assert out.hit_blocks[2].tolist() == [0, 0, 0]
    assert out.stored_blocks.sum() == 0


def test_lookup_continues_from_gpu_into_cpu_for_the_following_blocks() -> None:
    # gpu keeps the head 0 (most recent), the tail 1 goes to cpu; a later [0, 1, 2] hits 0 gpu, 1 cpu
    trace = trace_from_paths([[0, 1], [0, 1, 2]])
    out = simulate(trace, one_pod(TierConfig("gpu", 1), TierConfig("cpu", 4)))
    assert out.hit_blocks[1].tolist() == [1, 1, 0]


def test_token_hits_are_capped_by_the_input_length() -> None:
    trace = trace_from_paths([[0, 1], [0, 1]])  # input = 2 blocks × 4 tokens − 1
    out = simulate(trace, one_pod(TierConfig("gpu", 4)))
    assert out.cached_tokens[1].tolist() == [7, 0, 0]
    # NOTE: a full hit still pays the fixed request overhead and the per-prompt-token host cost
    # (vLLM recomputes the last prompt token), but no prefill compute.
    lat = latency_model("h100-sxm", "llama-3.1-8b")
    assert out.prefill_s[1] == pytest.approx(lat.request_overhead_s + 7 * lat.host_s_per_prompt_token)


def test_restart_empties_the_pods_caches() -> None:
    trace = trace_from_paths([[0, 1], [0, 1], [0, 1]], gaps_s=[1.0, 1.0, 1.0])
    config = one_pod(TierConfig("gpu", 4), TierConfig("cpu", 4))
    plain = simulate(trace, config)
    restarted = simulate(trace, config, (ClusterEvent(2.5, "restart", pod=0),))
    assert plain.hit_blocks.sum(axis=1).tolist() == [0, 2, 2]
    assert restarted.hit_blocks.sum(axis=1).tolist() == [0, 2, 0]


def test_router_event_switches_routing_from_its_time_on() -> None:
    trace = trace_from_paths([[0], [0], [0], [0]], gaps_s=[1.0] * 4)
    config = ClusterConfig(num_pods=2, tiers=(TierConfig("gpu", 4),), router=RouterConfig("round_robin"))
    only_prefix = RouterConfig("prefix", queue_weight=0.0, kv_weight=0.0, prefix_weight=1.0)
    out = simulate(trace, config, (ClusterEvent(2.5, "router", router=only_prefix),))
    assert out.pod.tolist() == [0, 1, 0, 0]


def test_requests_on_one_pod_queue_for_its_prefill_slot() -> None:
    trace = trace_from_paths([[0, 1, 2], [3, 4, 5]], gaps_s=[0.0, 0.0])
    out = simulate(trace, one_pod(TierConfig("gpu", 10)))
    assert out.queue_s[0] == 0.0
    assert out.queue_s[1] == pytest.approx(out.prefill_s[0])
    np.testing.assert_allclose(out.ttft_s, out.queue_s + out.load_s + out.prefill_s)


def test_learned_keys_never_read_the_future() -> None:
    paths = [[0, 1], [0, 1, 2], [3], [0, 1, 2, 4], [3, 5], [6], [0, 1, 2, 4, 7]]
    gaps = [1.0, 5.0, 2.0, 30.0, 700.0, 1.0, 3.0]
    full = learned_request_keys(trace_from_paths(paths, gaps), LearnedOptions(horizon_s=60.0))
    for n in range(1, len(paths)):
        head = learned_request_keys(trace_from_paths(paths[:n], gaps[:n]), LearnedOptions(horizon_s=60.0))
        np.testing.assert_array_equal(head, full[:n])


def test_constant_outside_probabilities_make_the_learned_policy_lru(mooncake_conversation) -> None:
    # Equal p leaves only recency (t_i) and the deeper-first tie, which is LRU's tail-first touch
    # order; a microsecond apart keeps LRU's order between requests that arrive at the same ms.
    # The block rules off: they are what the learned policy adds beyond its request scores.
    trace = read_mooncake(mooncake_conversation)
    trace = dataclasses.replace(trace, arrival_s=trace.arrival_s + np.arange(trace.num_requests) * 1e-6)
    constant = LearnedOptions(probabilities=np.full(trace.num_requests, 0.5), block_rules=False)
    for capacity in (1, 2_000, 18_279):
        np.testing.assert_array_equal(
            replay_single_cache(trace, capacity, "learned", constant),
            replay_single_cache(trace, capacity, "lru"),
        )


@pytest.mark.parametrize(
    ("paths", "capacity", "lru_hits", "learned_hits"),
    [
        # A partial last block (1, then 3) goes before an older full block (0), which D then hits.
        ([[0, 1], [2, 3], [4, 5], [0, 6]], 4, [0, 0, 0, 0], [0, 0, 0, 1]),
        # B supersedes A's tail from block 2 on: C evicts A's deepest block 3 and B's partial
        # last block 9 rather than LRU's 3 and 2, so D, a regenerated A, finds 0, 1 and 2.
        ([[0, 1, 2, 3], [0, 1, 9], [4, 5], [0, 1, 2]], 5, [0, 2, 0, 2], [0, 2, 0, 3]),
    ],
)
def test_learned_block_rules_evict_partial_last_blocks_and_superseded_tails_first(
    paths, capacity, lru_hits, learned_hits
) -> None:
    trace = trace_from_paths(paths, [1.0] * len(paths))
    constant = np.full(len(paths), 0.5)
    without = LearnedOptions(probabilities=constant, block_rules=False)
    assert replay_single_cache(trace, capacity, "lru").tolist() == lru_hits
    assert replay_single_cache(trace, capacity, "learned", without).tolist() == lru_hits
    with_rules = LearnedOptions(probabilities=constant)
    assert replay_single_cache(trace, capacity, "learned", with_rules).tolist() == learned_hits


@pytest.mark.parametrize(
    ("probabilities", "message"),
    [
        (np.full(2, 0.5), "one per request"),
        (np.array([0.5, 0.0, 0.5]), r"\(0, 1\]"),
        (np.array([0.5, 1.5, 0.5]), r"\(0, 1\]"),
        (np.array([0.5, np.nan, 0.5]), r"\(0, 1\]"),
    ],
)
def test_outside_probabilities_must_be_one_per_request_in_0_1(probabilities, message) -> None:
    trace = trace_from_paths([[0], [0, 1], [2]])
    with pytest.raises(ValueError, match=message):
        replay_single_cache(trace, 2, "learned", LearnedOptions(probabilities=probabilities))


def test_registry_describes_every_policy_and_labels_only_the_oracle_as_reference() -> None:
    assert set(policy_names()) == {"lru", "fifo", "lfu", "s3fifo", "arc", "oracle", "learned"}
    assert all(info.description for info in POLICIES.values())
    assert [n for n in policy_names() if policy_info(n).is_reference] == ["oracle"]
    assert len({info.policy_id for info in POLICIES.values()}) == len(POLICIES)


def test_unknown_policy_and_router_names_are_rejected_with_the_known_ones() -> None:
    trace = trace_from_paths([[0]])
    with pytest.raises(ValueError, match="known: lru"):
        replay_single_cache(trace, 4, "mru")
    with pytest.raises(ValueError, match="round_robin"):
        simulate(trace, ClusterConfig(router=RouterConfig("nearest")))
    assert "precise_prefix" in router_names()


def test_sessions_are_inferred_from_the_deepest_shared_block_but_not_the_root_alone() -> None:
    # 1 repeats 0 except its partial last block; 2 shares only the root block 0; 3 extends 1
    trace = trace_from_paths([[0, 1, 2, 3], [0, 1, 2, 4, 5], [0, 6], [0, 1, 2, 4, 5, 7]])
    parent, session, turns = session_structure(trace)
    assert parent.tolist() == [-1, 0, -1, 1]
    assert session[3] == session[1] == session[0] != session[2]
    assert turns.tolist() == [0, 1, 0, 2]


def test_arc_keeps_a_twice_used_block_through_a_scan_that_lru_loses_it_to() -> None:
    # capacity 2: block 0 is used twice (ARC's frequency list T2); the one-off blocks 1, 2 only
    # displace each other in T1, so 0 survives; LRU evicts 0 as the least recent
    trace = trace_from_paths([[0], [0], [1], [2], [0]])
    assert replay_single_cache(trace, 2, "lru").tolist() == [0, 1, 0, 0, 0]
    assert replay_single_cache(trace, 2, "arc").tolist() == [0, 1, 0, 0, 1]
