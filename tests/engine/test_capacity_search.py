"""The upward capacity scan finds the smallest capacity reaching a target where a bisection overshoots."""

from __future__ import annotations

import pytest

from dashboard.engine.capacity import smallest_capacity, space_reduction_vs_lru
from dashboard.engine.capacity_search import scan_smallest_capacity
from dashboard.engine.replay import block_hit_ratio, replay_single_cache
from tests.engine.gen import belady_trace


def test_fifo_hit_ratio_falls_as_capacity_grows_on_the_belady_trace():
    trace = belady_trace()
    hits = [int(replay_single_cache(trace, c, "fifo").sum()) for c in (63, 64)]
    assert hits[1] < hits[0]


def test_scan_finds_the_smallest_capacity_where_bisection_overshoots():
    trace = belady_trace()
    ratios = [
        block_hit_ratio(replay_single_cache(trace, c, "fifo"), trace) for c in range(trace.num_blocks + 1)
    ]
    target = 64 / trace.num_block_accesses
    brute = next(c for c, r in enumerate(ratios) if r >= target)  # every capacity, one by one
    bisected, _ = smallest_capacity(lambda c: ratios[c], target, 0, trace.num_blocks)
    found = scan_smallest_capacity(lambda c: ratios[c], target, 0, trace.num_blocks)
    assert bisected is not None and bisected > brute
    assert found.capacity_blocks == brute
    assert found.num_evaluations < trace.num_blocks // 2  # a scan, not every capacity


def test_scan_says_how_it_searched():
    found = scan_smallest_capacity(lambda c: min(c, 1000) / 1000, 0.377, 0, 1000)
    assert found.capacity_blocks == 377
    assert found.search.startswith("scan of 32 capacities over 0–1,000 blocks, refined between ")


def test_scan_reports_an_unreachable_target_and_a_target_reached_at_once():
    never = scan_smallest_capacity(lambda c: 0.1, 0.5, 0, 100)
    assert never.capacity_blocks is None and never.search.endswith("none reaches the target")
    at_once = scan_smallest_capacity(lambda c: 0.9, 0.5, 10, 100)
    assert at_once.capacity_blocks == 10 and at_once.num_evaluations == 1


def test_scan_rejects_an_empty_range():
    with pytest.raises(ValueError, match="0 <= lo <= hi"):
        scan_smallest_capacity(lambda c: 0.0, 0.5, 10, 5)


def test_space_reduction_carries_its_search_and_finds_the_capacity_before_the_dip():
    trace = belady_trace()
    result = space_reduction_vs_lru(trace, "fifo", trace.num_blocks)
    assert result.search.startswith("scan of 32 capacities over 0–")
    assert result.policy_capacity_blocks is not None
    ratios = [
        block_hit_ratio(replay_single_cache(trace, c, "fifo"), trace) for c in range(trace.num_blocks + 1)
    ]
    assert result.policy_capacity_blocks == next(
        c for c, r in enumerate(ratios) if r >= result.lru_block_hit_ratio
    )
