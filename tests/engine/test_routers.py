"""Router behaviour on tiny traces: determinism, affinity, load spreading, tier-aware prediction."""

from __future__ import annotations

import numpy as np

from dashboard.core.types import ClusterConfig, RouterConfig, TierConfig
from dashboard.engine.replay import simulate
from tests.engine.gen import trace_from_paths


def cluster(router: RouterConfig, num_pods: int = 3, *tiers: TierConfig) -> ClusterConfig:
    return ClusterConfig(num_pods=num_pods, tiers=tiers or (TierConfig("gpu", 64),), router=router)


def test_random_router_is_deterministic_per_seed_and_differs_across_seeds() -> None:
    trace = trace_from_paths([[i] for i in range(40)])
    a = simulate(trace, cluster(RouterConfig("random", seed=1))).pod
    b = simulate(trace, cluster(RouterConfig("random", seed=1))).pod
    c = simulate(trace, cluster(RouterConfig("random", seed=2))).pod
    assert a.tolist() == b.tolist()
    assert a.tolist() != c.tolist()
    assert set(a.tolist()) == {0, 1, 2}


def test_session_affinity_keeps_each_inferred_session_on_one_pod() -> None:
    paths = [[10 * s + 0, 10 * s + 1] for s in range(6)] + [
        [10 * s + 0, 10 * s + 1, 10 * s + 2] for s in range(6)
    ]
    out = simulate(trace_from_paths(paths), cluster(RouterConfig("session_affinity", seed=3)))
    assert out.pod[:6].tolist() == out.pod[6:].tolist()


def test_least_loaded_spreads_a_burst_over_all_pods() -> None:
    trace = trace_from_paths([[i, 100 + i] for i in range(6)], gaps_s=[0.0] * 6)
    out = simulate(trace, cluster(RouterConfig("least_loaded")))
    assert np.bincount(out.pod, minlength=3).tolist() == [2, 2, 2]


def test_prefix_router_follows_the_prefix_and_predicts_its_match() -> None:
    # the second conversation arrives while pod 0 is busy (KV load) so it opens on pod 1;
    # its follow-up comes when both pods are idle and goes where its prefix is
    trace = trace_from_paths([[0, 1], [2, 3], [2, 3, 4, 5]], gaps_s=[1.0, 0.0, 100.0])
    out = simulate(trace, cluster(RouterConfig("prefix"), 2))
    assert out.pod.tolist() == [0, 1, 1]
    assert out.predicted_hit_ratio.tolist() == [0.0, 0.0, 0.5]


def test_no_hit_lru_sends_cold_requests_to_the_least_recently_used_pod() -> None:
    trace = trace_from_paths([[0], [1], [2], [3], [0, 9]], gaps_s=[100.0] * 5)
    out = simulate(trace, cluster(RouterConfig("no_hit_lru"), 3))
    assert out.pod.tolist()[:4] == [0, 1, 2, 0]
    assert out.pod[4] == 0  # warm: its prefix lives on pod 0


def test_precise_prefix_weighs_cpu_matches_at_0_8() -> None:
    # pod 0 serves [0, 1] then [2, 3] with a 2-block gpu: 0, 1 move to cpu; the repeat scores 2 × 0.8 / 2
    trace = trace_from_paths([[0, 1], [2, 3], [0, 1]], gaps_s=[100.0] * 3)
    tiers = (TierConfig("gpu", 2), TierConfig("cpu", 8))
    out = simulate(trace, cluster(RouterConfig("precise_prefix", queue_weight=0, kv_weight=0), 1, *tiers))
    assert out.predicted_hit_ratio[2] == 0.8
    assert out.hit_blocks[2].tolist() == [0, 2, 0]
