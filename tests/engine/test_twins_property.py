"""Every compiled kernel equals its pure-Python twin on random small chained traces (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.core.types import ClusterConfig, ClusterEvent, RouterConfig, TierConfig, Trace
from dashboard.engine import routers
from dashboard.engine.policies import policy_info, policy_names
from dashboard.engine.policies.learned import LearnedOptions, continuation_keys, feature_values
from dashboard.engine.replay import (
    learned_block_rules,
    learned_request_keys,
    replay_single_cache,
    request_features,
    simulate,
)
from dashboard.engine.sessions import session_structure
from tests.engine.gen import chained_traces, trace_from_paths
from tests.engine.twin_cluster import simulate_twin
from tests.engine.twins import block_rules_twin, continuation_keys_twin, replay_single_twin

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(trace=chained_traces(), capacity=st.integers(0, 20), policy=st.sampled_from(policy_names()))
def test_each_single_cache_kernel_equals_its_twin(trace: Trace, capacity: int, policy: str) -> None:
    scores = learned_request_keys(trace, LearnedOptions()) if policy == "learned" else None
    expected = replay_single_twin(trace, capacity, policy, scores, learned_rules_twin(trace))
    assert replay_single_cache(trace, capacity, policy).tolist() == expected


@FAST
@given(
    paths=st.lists(st.lists(st.integers(0, 12), min_size=1, max_size=10), min_size=1, max_size=30),
    capacity=st.integers(0, 15),
)
def test_lru_fast_path_equals_its_twin_on_unchained_block_lists(
    paths: list[list[int]], capacity: int
) -> None:
    # Repeated blocks within a request and resident blocks after a miss exercise the run splice.
    trace = trace_from_paths(paths)
    assert replay_single_cache(trace, capacity, "lru").tolist() == replay_single_twin(
        trace, capacity, "lru", None
    )


@FAST
@given(trace=chained_traces(), horizon_s=st.sampled_from([1.0, 10.0, 600.0]))
def test_learned_continuation_keys_equal_their_twin(trace: Trace, horizon_s: float) -> None:
    parent, _, turns = session_structure(trace)
    columns = request_features(trace, parent, turns)
    features = feature_values(*columns)
    assert features.tolist() == feature_values.py_func(*columns).tolist()
    got = continuation_keys(trace.arrival_s, parent, features, horizon_s, 300.0, 4.0)
    want = continuation_keys_twin(
        trace.arrival_s.tolist(), parent.tolist(), features.tolist(), horizon_s, 300.0, 4.0
    )
    # NOTE: numba and Python sum log-odds in different orders: ~1e-16 apart, far below any gap
    # between two keys the policy compares (the replays beside it are compared exactly).
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def learned_rules_twin(trace: Trace) -> dict:
    """The twin's block rules at the default options."""
    options = LearnedOptions()
    parent, _, _ = session_structure(trace)
    return block_rules_twin(trace, parent.tolist(), options.horizon_s, options.prior_weight)


@FAST
@given(trace=chained_traces(), horizon_s=st.sampled_from([1.0, 10.0, 600.0]))
def test_learned_block_rules_equal_their_twin(trace: Trace, horizon_s: float) -> None:
    got = learned_block_rules(trace, LearnedOptions(horizon_s=horizon_s))
    parent, _, _ = session_structure(trace)
    want = block_rules_twin(trace, parent.tolist(), horizon_s, LearnedOptions().prior_weight)
    np.testing.assert_allclose(got.tail_adjust, want["tail"], rtol=1e-12)
    superseded = np.flatnonzero(got.sup_parent >= 0).tolist()
    assert superseded == sorted(want["sup"])
    for c in superseded:
        p, start, adjust = want["sup"][c]
        assert (got.sup_parent[c], got.sup_from[c]) == (p, start)
        assert got.sup_adjust[c] == pytest.approx(adjust, rel=1e-12)


tier_layouts = st.sampled_from([("gpu",), ("gpu", "cpu"), ("gpu", "cpu", "disk"), ("gpu", "disk")])


KEYLESS = [p for p in policy_names() if not policy_info(p).reads_block_keys]


@FAST
@given(
    trace=chained_traces(),
    layout=tier_layouts,
    caps=st.lists(st.integers(0, 12), min_size=3, max_size=3),
    lower=st.lists(st.sampled_from(KEYLESS), min_size=2, max_size=2),
    router=st.sampled_from(routers.router_names()),
    num_pods=st.integers(1, 3),
    enable_offload=st.booleans(),
    restart_at=st.one_of(st.none(), st.floats(0.0, 20.0)),
)
def test_an_lru_top_tier_equals_its_twin(
    trace, layout, caps, lower, router, num_pods, enable_offload, restart_at
) -> None:
    """The cluster kernel's register path for a pod's top tier under LRU (top_lru.py), alone or over
    lower tiers of any policy that reads no block keys, under every router (a one-tier pod's views
    hold no victims), and the lists it leaves: the state pool empties them by walking them, and
    the next replay starts there."""
    policies = ["lru", *lower]
    tiers = tuple(TierConfig(name, caps[k], policies[k]) for k, name in enumerate(layout))
    config = ClusterConfig(
        num_pods=num_pods, tiers=tiers, router=RouterConfig(router), enable_offload=enable_offload
    )
    events = () if restart_at is None else (ClusterEvent(restart_at, "restart", pod=0),)
    _, session, _ = session_structure(trace)
    want = simulate_twin(trace, config, events, routers.affinity_pods(session, num_pods, 0), None, None)
    got = simulate(trace, config, events)
    assert got.pod.tolist() == want["pod"]
    assert got.hit_blocks.tolist() == want["hits"]
    assert got.stored_blocks.tolist() == want["stored"]
    assert simulate(trace, config, events).hit_blocks.tolist() == want["hits"]


@FAST
@given(
    trace=chained_traces(),
    layout=tier_layouts,
    caps=st.lists(st.integers(0, 12), min_size=3, max_size=3),
    policies=st.lists(st.sampled_from(policy_names()), min_size=3, max_size=3),
    router=st.sampled_from(routers.router_names()),
    num_pods=st.integers(1, 3),
    enable_offload=st.booleans(),
    seed=st.integers(0, 2**40),
    restart_at=st.one_of(st.none(), st.floats(0.0, 20.0)),
)
def test_tiered_cluster_kernel_equals_its_twin(
    trace, layout, caps, policies, router, num_pods, enable_offload, seed, restart_at
) -> None:
    tiers = tuple(TierConfig(name, caps[k], policies[k]) for k, name in enumerate(layout))
    config = ClusterConfig(
        num_pods=num_pods, tiers=tiers, router=RouterConfig(router, seed=seed), enable_offload=enable_offload
    )
    events = (
        ()
        if restart_at is None
        else (
            ClusterEvent(restart_at, "restart", pod=num_pods - 1),
            ClusterEvent(restart_at, "router", router=RouterConfig("prefix")),
        )
    )
    got = simulate(trace, config, events)
    scores = learned_request_keys(trace, LearnedOptions()) if "learned" in [t.policy for t in tiers] else None
    _, session, _ = session_structure(trace)
    rules = learned_rules_twin(trace) if scores is not None else None
    want = simulate_twin(trace, config, events, routers.affinity_pods(session, num_pods, seed), scores, rules)
    assert got.pod.tolist() == want["pod"]
    assert got.hit_blocks.tolist() == want["hits"]
    assert got.cached_tokens.tolist() == want["cached"]
    assert got.stored_blocks.tolist() == want["stored"]
    np.testing.assert_allclose(got.ttft_s, want["ttft"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got.finish_s, want["finish"], rtol=1e-9)
    np.testing.assert_allclose(got.predicted_hit_ratio, want["pred"], rtol=1e-12)
