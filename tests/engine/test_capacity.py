"""Capacity for a target hit ratio and cache-space reduction versus LRU, on synthetic curves and replays."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.engine.capacity import (
    capacity_for_hit_ratio,
    capacity_for_policy,
    reduction_from_curves,
    smallest_capacity,
    space_reduction_vs_lru,
)
from dashboard.engine.mrc import MissRatioCurve, lru_mrc, policy_mrc
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import block_hit_ratio, replay_single_cache


def curve(caps, ratios) -> MissRatioCurve:
    return MissRatioCurve(np.array(caps), np.array(ratios, float), np.array(ratios, float))


def looping_trace(num_loops: int = 30, width: int = 10):
    """Two-block requests cycling over `width` prefixes: LRU thrashes below width*2 blocks."""
    blocks = [[p, 100 + p] for _ in range(num_loops) for p in range(width)]
    return build_trace(
        arrival_s=np.arange(len(blocks), dtype=float),
        block_counts=np.full(len(blocks), 2),
        raw_block_ids=np.array(blocks).ravel(),
        input_tokens=np.full(len(blocks), 8),
        output_tokens=np.zeros(len(blocks)),
        block_tokens=4,
        source="loop",
    )


def test_capacity_is_interpolated_between_curve_points():
    assert capacity_for_hit_ratio(curve([100, 200, 400], [0.1, 0.3, 0.5]), 0.2) == pytest.approx(150.0)
    assert capacity_for_hit_ratio(curve([100, 200, 400], [0.1, 0.3, 0.5]), 0.4) == pytest.approx(300.0)


def test_unreachable_target_has_no_capacity():
    assert capacity_for_hit_ratio(curve([100, 200], [0.1, 0.3]), 0.31) is None


def test_target_below_the_first_point_needs_the_first_capacity():
    assert capacity_for_hit_ratio(curve([100, 200], [0.1, 0.3]), 0.05) == 100.0


def test_reduction_of_a_curve_twice_as_efficient_is_one_half():
    lru = curve([100, 200, 400, 800], [0.1, 0.2, 0.3, 0.4])
    better = curve([50, 100, 200, 400], [0.1, 0.2, 0.3, 0.4])
    assert reduction_from_curves(lru, better, 400) == pytest.approx(0.5)
    assert reduction_from_curves(better, lru, 200) == pytest.approx(-1.0)


def test_bisection_finds_the_first_capacity_reaching_the_target():
    capacity, num_calls = smallest_capacity(lambda c: min(c, 1000) / 1000, 0.377, 0, 1000)
    assert capacity == 377 and num_calls <= 12


def test_lru_capacity_for_its_own_ratio_is_at_most_that_capacity(mooncake_conversation):
    trace = read_mooncake(mooncake_conversation)
    at_reference = float(lru_mrc(trace, np.array([18_279])).block_hit_ratio[0])
    needed = capacity_for_policy(trace, at_reference)
    assert needed is not None and needed <= 18_279
    assert lru_mrc(trace, np.array([needed - 1])).block_hit_ratio[0] < at_reference


def test_fifo_needs_the_same_space_as_lru_on_a_trace_of_distinct_blocks():
    trace = build_trace(
        arrival_s=np.arange(6, dtype=float),
        block_counts=np.ones(6, int),
        raw_block_ids=np.arange(6),
        input_tokens=np.full(6, 4),
        output_tokens=np.zeros(6),
        block_tokens=4,
        source="distinct",
    )
    result = space_reduction_vs_lru(trace, "fifo", 3)
    assert (
        result.lru_block_hit_ratio == 0.0 and result.policy_capacity_blocks == 0 and result.reduction == 1.0
    )


def test_oracle_beats_lru_on_a_looping_trace():
    trace = looping_trace()
    result = space_reduction_vs_lru(trace, "oracle", 20)
    assert result.policy_capacity_blocks is not None and result.policy_capacity_blocks <= 20
    assert result.policy_block_hit_ratio >= result.lru_block_hit_ratio
    hits = replay_single_cache(trace, result.policy_capacity_blocks - 1, "oracle")
    assert block_hit_ratio(hits, trace) < result.lru_block_hit_ratio


def test_policy_curve_by_sweep_equals_single_cache_replays_at_every_point():
    trace = looping_trace()
    caps = np.array([0, 5, 10, 19, 20, 40])
    swept = policy_mrc(trace, "fifo", caps)
    assert swept.capacity_blocks.tolist() == caps.tolist()
    fifo = [block_hit_ratio(replay_single_cache(trace, int(c), "fifo"), trace) for c in caps]
    assert swept.block_hit_ratio.tolist() == pytest.approx(fifo)
    # Two 4-token blocks, 8 input tokens: the token ratio equals the block ratio here.
    assert swept.token_hit_ratio.tolist() == pytest.approx(fifo)


def test_token_metric_reads_the_token_curve_and_bad_metrics_are_rejected():
    tokens = MissRatioCurve(np.array([100, 200]), np.array([0.1, 0.3]), np.array([0.2, 0.4]))
    assert capacity_for_hit_ratio(tokens, 0.3, metric="token") == pytest.approx(150.0)
    with pytest.raises(ValueError, match="metric must be 'block' or 'token'"):
        capacity_for_hit_ratio(tokens, 0.3, metric="bytes")
