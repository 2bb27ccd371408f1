"""The single-cache kernel (every policy but LRU, which has its own, and the learned one) is the
cluster kernel's one pod and one tier, hit for hit, on the real traces."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dashboard.core.types import ClusterConfig, RouterConfig, TierConfig, Trace
from dashboard.engine.policies import POLICIES
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import replay_in_single_kernel, replay_single_cache, simulate
from dashboard.engine.single_cache import POLICY_IDS

KERNEL_POLICIES = [p.name for p in POLICIES.values() if p.policy_id in POLICY_IDS]


@pytest.fixture(scope="module", params=["conversation_trace.jsonl", "synthetic_trace.jsonl"])
def trace(request, traces_dir: Path) -> Trace:
    return read_mooncake(traces_dir / "mooncake-fast25" / request.param)


def test_every_policy_but_lru_and_learned_is_run_by_the_kernel() -> None:
    # NOTE: a new policy without a branch here would fall back to the slow cluster path unnoticed
    for p in POLICIES.values():
        if p.name not in ("lru", "learned"):
            assert p.policy_id in POLICY_IDS, f"{p.name}: add it to single_cache.py"
    assert {"fifo", "lfu", "s3fifo", "arc", "oracle"} <= set(KERNEL_POLICIES)


@pytest.mark.parametrize("policy", KERNEL_POLICIES)
def test_the_kernel_hits_what_one_pod_of_the_cluster_kernel_hits(trace: Trace, policy: str) -> None:
    for share in (0.0, 0.002, 0.01, 0.1, 1.0):
        capacity = int(share * trace.num_blocks)
        config = ClusterConfig(
            num_pods=1, tiers=(TierConfig("gpu", capacity, policy),), router=RouterConfig()
        )
        cluster = simulate(trace, config).hit_blocks[:, 0]
        np.testing.assert_array_equal(replay_in_single_kernel(trace, capacity, policy), cluster)
        # NOTE: and replay_single_cache's own path where it has one (LFU's, without the heap)
        np.testing.assert_array_equal(replay_single_cache(trace, capacity, policy), cluster)


def test_a_policy_the_kernel_does_not_run_is_refused(trace: Trace) -> None:
    with pytest.raises(ValueError, match="policy not run by this kernel"):
        replay_in_single_kernel(trace, 10, "learned")
