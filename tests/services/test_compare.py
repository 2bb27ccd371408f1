"""services/compare.py on the Mooncake conversation trace: replays equal `kvscope replay`, waterfalls add up, overload is flagged."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.core.scenarios import HitWaterfall, Scenario
from dashboard.engine.mrc import lru_mrc
from dashboard.engine.readers import read_trace
from dashboard.engine.trace_stats import trace_stats
from dashboard.services import compare
from dashboard.services.replay import ReplayRequest, run_replay

SCENARIOS = (
    Scenario(router="round_robin", hbm_blocks=2300),
    Scenario(router="prefix", hbm_blocks=2300),
    Scenario(router="precise_prefix", hbm_blocks=2300, cpu_blocks=6900),
    Scenario(router="precise_prefix", policy="s3fifo", hbm_blocks=2300, cpu_blocks=6900, disk_blocks=20000),
)


@pytest.fixture(scope="module")
def trace(mooncake_conversation):
    return read_trace(str(mooncake_conversation), "mooncake")


@pytest.fixture(scope="module")
def comparison(trace):
    return compare.compare(trace, SCENARIOS, "conversation_trace.jsonl")


def without_timing(summary) -> dict:
    return {k: v for k, v in summary.to_dict().items() if k not in ("elapsed_s", "config")}


@pytest.mark.parametrize(
    "req",
    [
        ReplayRequest(num_pods=1, hbm_blocks=18279),
        ReplayRequest(num_pods=4, router="precise_prefix", hbm_blocks=4569, cpu_blocks=13710),
        ReplayRequest(num_pods=3, router="random", policy="fifo", hbm_blocks=3000, disk_blocks=9000, seed=5),
    ],
)
def test_a_scenario_replays_exactly_as_kvscope_replay(trace, req):
    scenario = Scenario(
        num_pods=req.num_pods,
        router=req.router,
        policy=req.policy,
        hbm_blocks=req.hbm_blocks,
        cpu_blocks=req.cpu_blocks,
        disk_blocks=req.disk_blocks,
        seed=req.seed,
    )
    result = compare.run_scenario(trace, scenario)
    assert without_timing(result.summary) == without_timing(run_replay(trace, req))


def test_the_golden_one_cache_lru_figure_holds_through_a_scenario(trace):
    result = compare.run_scenario(trace, Scenario(num_pods=1, router="round_robin", hbm_blocks=18279))
    assert round(result.summary.block_hit_ratio, 6) == 0.278912


def test_hbm_left_open_is_sized_from_the_hardware_and_model_profiles(trace):
    result = compare.run_scenario(trace, Scenario(num_pods=2, hbm_blocks=None, hardware="h200"))
    expected = run_replay(
        trace, ReplayRequest(num_pods=2, router="prefix", hardware="h200", model="llama-3.1-8b")
    )
    assert result.hbm_blocks == expected.config["hbm_blocks"]
    assert without_timing(result.summary) == without_timing(expected)


def test_the_scorer_weights_reach_the_router(trace):
    default = compare.run_scenario(trace, Scenario(router="prefix", hbm_blocks=2300))
    prefix_only = compare.run_scenario(
        trace, Scenario(router="prefix", hbm_blocks=2300, queue_weight=0.0, kv_weight=0.0, prefix_weight=1.0)
    )
    assert default.summary.pods != prefix_only.summary.pods
    assert prefix_only.summary.load_imbalance > default.summary.load_imbalance  # nothing pulls load apart


def test_each_waterfall_walks_from_the_ceiling_to_what_the_scenario_delivered(comparison):
    for i, result in enumerate(comparison.results):
        w = comparison.waterfall(i)
        assert w.ceiling - w.lost_to_routing - w.lost_to_capacity == pytest.approx(w.delivered, abs=1e-12)
        assert w.delivered == pytest.approx(result.summary.token_hit_ratio, abs=1e-12)
        assert w.lost_to_capacity >= 0  # nothing beats a cache that never evicts
        tiers = result.summary.tiers
        share = tiers["cpu"]["token_hits"] / max(result.summary.prefill_tokens_saved, 1)
        assert w.tier("cpu") == pytest.approx(w.delivered * share, abs=1e-12)
    assert comparison.waterfall(3).tier("disk") > 0


def test_the_ceiling_is_the_unlimited_cache_of_the_trace_statistics(trace, comparison):
    assert comparison.ceiling == pytest.approx(trace_stats(trace).ceiling_token_hit_ratio, abs=1e-12)


def test_one_pod_loses_nothing_to_routing(trace):
    result = compare.run_scenario(trace, Scenario(num_pods=1, router="round_robin", hbm_blocks=5000))
    assert result.pooled == result.summary.token_hit_ratio


def test_the_pooled_lru_cache_is_the_curve_at_the_whole_clusters_hbm(trace, comparison):
    result = comparison.results[0]  # HBM only, LRU
    curve = lru_mrc(trace, np.array([result.total_hbm_blocks]))
    assert result.pooled == pytest.approx(float(curve.token_hit_ratio[0]), abs=1e-12)
    assert result.total_hbm_blocks == 8 * 2300


def test_a_one_pod_replay_of_mooncake_is_overloaded_and_says_by_how_much(trace):
    load = compare.run_scenario(trace, Scenario(num_pods=1, router="round_robin", hbm_blocks=18279)).load
    assert load.is_overloaded
    assert load.arrival_tokens_per_s > load.capacity_tokens_per_s > 0
    assert load.utilization == pytest.approx(load.arrival_tokens_per_s / load.capacity_tokens_per_s)


def test_eight_pods_keep_up_with_mooncake(comparison):
    assert not any(r.load.is_overloaded for r in comparison.results)
    assert all(0 < r.load.utilization < 1 for r in comparison.results)


def test_progress_is_reported_once_per_scenario(trace):
    seen = []
    compare.compare(trace, SCENARIOS[:2], "t", on_progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 2), (2, 2)]


def test_a_bad_scenario_is_refused_naming_the_field():
    with pytest.raises(ValueError, match="pods must be at least 1"):
        Scenario(num_pods=0).validate()
    with pytest.raises(ValueError, match="scorer weights"):
        Scenario(queue_weight=0.0, kv_weight=0.0, prefix_weight=0.0).validate()


def test_a_waterfall_with_a_routing_gain_still_adds_up():
    w = HitWaterfall(
        ceiling=0.5, pooled=0.30, delivered_by_tier=(("gpu", 0.25), ("cpu", 0.07), ("disk", 0.0))
    )
    assert w.lost_to_routing == pytest.approx(-0.02) and w.lost_to_capacity == pytest.approx(0.2)


def test_the_caption_names_every_scenario_and_the_users_trace(comparison):
    inputs, window, source = compare.caption_parts(comparison)
    assert all(f"S{i}: " in inputs for i in range(1, 5)) and "precise_prefix · s3fifo" in inputs
    assert "12,031 requests" in window and source == "conversation_trace.jsonl"


def test_names_default_to_s1_onwards_and_follow_the_results(trace, comparison):
    assert comparison.names == ("S1", "S2", "S3", "S4")
    with pytest.raises(AssertionError):
        compare.assemble(trace, "t", comparison.curve, list(comparison.results), ["S1"])
    kept = compare.assemble(trace, "t", comparison.curve, [comparison.results[2]], ["S3"])
    assert kept.names == ("S3",) and kept.waterfall(0) == comparison.waterfall(2)
