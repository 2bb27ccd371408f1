"""Replay summaries on hand-worked outcomes: ratios of sums, per tier, per pod, over time, by outcome."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dashboard.core.types import ClusterConfig, ReplayOutcome
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.summary import outcome_classes, summarize


def hand_worked():
    """Four requests of 4, 2, 3, 1 blocks (4 tokens a block) on two pods.

    r0: miss on pod 0; r1: 2 gpu hits (full) on pod 1; r2: 1 gpu + 1 cpu hit (partial) on pod 0;
    r3: 1 disk hit (full) on pod 0. Input tokens 16, 7, 12, 3.
    """
    trace = build_trace(
        arrival_s=np.array([0.0, 1.0, 2.0, 4.0]),
        block_counts=np.array([4, 2, 3, 1]),
        raw_block_ids=np.array([1, 2, 3, 4, 1, 2, 1, 2, 9, 1]),
        input_tokens=np.array([16, 7, 12, 3]),
        output_tokens=np.zeros(4),
        block_tokens=4,
        source="hand",
    )
    hit_blocks = np.array([[0, 0, 0], [2, 0, 0], [1, 1, 0], [0, 0, 1]], np.int32)
    cached = np.array([[0, 0, 0], [7, 0, 0], [4, 4, 0], [0, 0, 3]], np.int64)
    zeros = np.zeros(4)
    outcome = ReplayOutcome(
        pod=np.array([0, 1, 0, 0], np.int32),
        hit_blocks=hit_blocks,
        num_blocks=np.array([4, 2, 3, 1], np.int32),
        cached_tokens=cached,
        queue_s=zeros,
        load_s=zeros,
        prefill_s=zeros,
        ttft_s=np.array([0.4, 0.1, 0.2, 0.3]),
        finish_s=zeros,
        stored_blocks=np.zeros(4, np.int32),
        predicted_hit_ratio=zeros,
    )
    return trace, outcome, ClusterConfig(num_pods=2)


def test_hit_ratios_are_ratios_of_sums():
    summary = summarize(*hand_worked())
    assert summary.block_accesses == 10 and summary.block_hits == 5
    assert summary.block_hit_ratio == pytest.approx(0.5)
    assert summary.token_hit_ratio == pytest.approx(18 / 38)
    assert summary.prefill_tokens_saved == 18


def test_tier_hits_split_blocks_and_tokens_by_the_tier_that_served_them():
    tiers = summarize(*hand_worked()).tiers
    assert tiers == {
        "gpu": {"block_hits": 3, "token_hits": 11},
        "cpu": {"block_hits": 1, "token_hits": 4},
        "disk": {"block_hits": 1, "token_hits": 3},
    }


def test_pods_report_requests_and_their_own_block_hit_ratio():
    summary = summarize(*hand_worked())
    assert summary.pods == {
        "0": {"requests": 3, "block_hit_ratio": pytest.approx(3 / 8)},
        "1": {"requests": 1, "block_hit_ratio": 1.0},
    }
    assert summary.load_imbalance == pytest.approx(3 / 2)


def test_outcome_classes_name_the_deepest_tier_that_served_a_hit():
    _, outcome, _ = hand_worked()
    assert outcome_classes(outcome).tolist() == ["miss", "full/gpu", "partial/cpu", "full/disk"]


def test_ttft_by_outcome_counts_each_class():
    by_outcome = summarize(*hand_worked()).ttft_by_outcome_s
    assert by_outcome["miss"]["requests"] == 1 and by_outcome["miss"]["p50"] == pytest.approx(0.4)
    assert by_outcome["partial/cpu"]["p99"] == pytest.approx(0.2)


def test_ttft_quantiles_and_histogram_cover_every_request():
    summary = summarize(*hand_worked())
    assert summary.ttft_s["p50"] == pytest.approx(0.25)
    assert sum(summary.ttft_histogram["counts"]) == 4
    assert summary.ttft_histogram["edges_s"][-1] == pytest.approx(0.4)


def test_hit_ratio_over_time_bins_arrivals():
    over_time = summarize(*hand_worked()).hit_ratio_over_time
    assert sum(over_time["requests"]) == 4
    assert over_time["requests"][0] == 1 and over_time["block_hit_ratio"][0] == 0.0
    assert over_time["requests"][-1] == 1 and over_time["block_hit_ratio"][-1] == 1.0
    assert over_time["start_s"][0] == 0.0


def test_summary_is_json_ready():
    text = json.dumps(summarize(*hand_worked()).to_dict(), allow_nan=True)
    assert '"block_hit_ratio": 0.5' in text
