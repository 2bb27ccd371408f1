"""Other policies' curves as the pages draw them: exact for LRU and small traces, else sampled within
its stated bound; the readout between curve points; the note that says how they were made."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.core.types import Trace
from dashboard.engine.mrc import curve_from_hits, lru_mrc, policy_mrc
from dashboard.engine.mrc_sampled import DEFAULT_RATE, sample_requests
from dashboard.engine.readers import read_trace
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.replay import replay_single_cache
from dashboard.services import compare, whatif
from dashboard.services.policy_curves import (
    EXACT_UP_TO_ACCESSES,
    HEAP_EXACT_UP_TO_ACCESSES,
    approximate_curve,
    approximation_note,
    exact_limits,
    exact_token_hit_ratios,
    exact_up_to,
    other_policies,
    reference_note,
    spot_checks,
    token_hit_at,
)
from tests.conftest import data_dir

TRACES = data_dir() / "traces" / "mooncake-fast25"


@pytest.fixture(scope="module")
def conversation() -> Trace:
    return read_trace(str(TRACES / "conversation_trace.jsonl"))


@pytest.fixture(scope="module")
def synthetic() -> Trace:
    return read_trace(str(TRACES / "synthetic_trace.jsonl"))


def capacities(trace: Trace, num: int) -> np.ndarray:
    return np.unique(np.geomspace(20, trace.num_blocks, num).astype(np.int64))


def test_lru_and_a_small_trace_get_exact_curves(synthetic):
    assert synthetic.num_block_accesses <= EXACT_UP_TO_ACCESSES
    caps = capacities(synthetic, 8)
    s3fifo = approximate_curve(synthetic, "s3fifo", caps)
    assert s3fifo.is_exact and s3fifo.label() == "s3fifo (exact)"
    exact = policy_mrc(synthetic, "s3fifo", caps)
    np.testing.assert_array_equal(s3fifo.curve.token_hit_ratio, exact.token_hit_ratio)
    np.testing.assert_array_equal(s3fifo.curve.block_hit_ratio, exact.block_hit_ratio)
    lru = approximate_curve(synthetic, "lru", caps)
    assert lru.is_exact
    np.testing.assert_array_equal(lru.curve.token_hit_ratio, lru_mrc(synthetic, caps).token_hit_ratio)


def test_a_policy_without_heaps_gets_its_exact_curve_on_a_larger_trace(conversation):
    # NOTE: the conversation trace's sweep takes 0.04-0.27 s for these, where their sampled curves
    # missed by up to 0.055; the policies on lazy heaps replay 3-8× slower and keep a lower limit
    assert HEAP_EXACT_UP_TO_ACCESSES < conversation.num_block_accesses <= EXACT_UP_TO_ACCESSES
    caps = capacities(conversation, 6)
    for policy in ("fifo", "s3fifo", "arc"):
        curve = approximate_curve(conversation, policy, caps)
        assert curve.is_exact and exact_up_to(policy) == EXACT_UP_TO_ACCESSES
        np.testing.assert_array_equal(
            curve.curve.token_hit_ratio, policy_mrc(conversation, policy, caps).token_hit_ratio
        )
    assert [exact_up_to(p) for p in ("oracle", "learned")] == [HEAP_EXACT_UP_TO_ACCESSES] * 2
    assert not approximate_curve(conversation, "oracle", caps).is_exact
    assert exact_limits() == (
        "500,000 block accesses (200,000 for oracle and learned; fifo's and lfu's curves are always exact)"
    )


@pytest.mark.parametrize("policy", ["fifo", "lfu"])
def test_fifo_and_lfu_get_their_exact_curves_on_a_trace_past_every_limit(policy):
    # FIFO's exact curve takes passes over the trace (engine/mrc_fifo.py), LFU's a heap-free replay per
    # capacity (policies/lfu.py)
    sample = read_trace(SAMPLE_DATA_DIR / "requests.parquet")
    assert sample.num_block_accesses > EXACT_UP_TO_ACCESSES
    caps = capacities(sample, 6)
    curve = approximate_curve(sample, policy, caps)
    assert curve.is_exact and not approximate_curve(sample, "s3fifo", caps).is_exact
    hits = [replay_single_cache(sample, int(c), policy) for c in caps]
    np.testing.assert_array_equal(
        curve.curve.block_hit_ratio, curve_from_hits(sample, caps, hits).block_hit_ratio
    )


@pytest.mark.parametrize("policy", ["learned", "oracle"])
def test_a_large_trace_gets_a_sampled_curve_within_its_stated_bound(conversation, policy):
    assert conversation.num_block_accesses > exact_up_to(policy)
    caps = capacities(conversation, 10)
    sampled = approximate_curve(conversation, policy, caps)
    assert not sampled.is_exact and sampled.rate == DEFAULT_RATE
    assert sampled.label() == f"{policy} (sampled 5%, measured ±{sampled.max_abs_error:.2f})"
    exact = policy_mrc(conversation, policy, caps)
    for got, want in (
        (sampled.curve.token_hit_ratio, exact.token_hit_ratio),
        (sampled.curve.block_hit_ratio, exact.block_hit_ratio),
    ):
        assert np.abs(got - want).max() <= sampled.max_abs_error
    asked = approximate_curve(conversation, policy, caps, exact=True)  # the pages' "exact curves" switch
    assert asked.is_exact
    np.testing.assert_array_equal(asked.curve.token_hit_ratio, exact.token_hit_ratio)


def test_a_large_trace_whose_sample_holds_no_request_gets_the_exact_curve():
    # NOTE: two requests of disjoint 100,001-block chains: each is its own sampling unit (all of
    # it trunk); at seed 0 neither hashes under the rate, so a sample would replay nothing.
    n = 100_001
    trace = build_trace(
        arrival_s=np.array([0.0, 1.0]),
        block_counts=np.array([n, n]),
        raw_block_ids=np.arange(2 * n, dtype=np.int64),
        input_tokens=np.array([16 * n, 16 * n]),
        output_tokens=np.zeros(2),
        block_tokens=16,
        source="two disjoint chains",
    )
    assert trace.num_block_accesses > exact_up_to("oracle")
    assert sample_requests(trace, DEFAULT_RATE).size == 0
    curve = approximate_curve(trace, "oracle", np.array([10, n, 2 * n]))
    assert curve.is_exact
    np.testing.assert_array_equal(curve.curve.block_hit_ratio, [0.0, 0.0, 0.0])


def test_an_unknown_policy_is_refused_by_name(synthetic):
    with pytest.raises(ValueError, match="unknown policy 'nope'"):
        approximate_curve(synthetic, "nope", np.array([10]))
    assert "lru" not in other_policies() and {"s3fifo", "arc", "learned"} <= set(other_policies())
    assert reference_note() == "oracle reads the future: a ceiling, not something to deploy."


def test_the_readout_is_linear_in_log_capacity_between_points_and_holds_at_the_ends(synthetic):
    curve = lru_mrc(synthetic, np.array([100, 400, 1600]))
    ratios = curve.token_hit_ratio
    for c, r in zip(curve.capacity_blocks, ratios, strict=True):
        assert token_hit_at(curve, float(c)) == pytest.approx(r, abs=1e-12)
    assert token_hit_at(curve, 200.0) == pytest.approx((ratios[0] + ratios[1]) / 2, abs=1e-12)
    assert token_hit_at(curve, 800.0) == pytest.approx((ratios[1] + ratios[2]) / 2, abs=1e-12)
    assert token_hit_at(curve, 5.0) == ratios[0] and token_hit_at(curve, 10**9) == ratios[2]


def test_the_note_says_how_sampled_curves_were_made_and_nothing_for_exact_ones(synthetic, conversation):
    caps = capacities(conversation, 4)
    exact = approximate_curve(synthetic, "arc", capacities(synthetic, 4))
    assert approximation_note([exact]) == ""
    sampled = [approximate_curve(conversation, p, caps) for p in ("learned", "oracle")]
    note = approximation_note([exact, *sampled])
    assert note.startswith("Curves marked sampled are approximate")
    assert "learned ±0.06, oracle ±0.14" in note and f"{sampled[0].num_requests_sampled:,} requests" in note
    assert "marked ×" not in note  # no check, no claim


def test_spot_checks_replay_each_sampled_curve_at_each_marked_capacity_and_the_note_gives_the_worst(
    synthetic, conversation
):
    caps = capacities(conversation, 6)
    sampled = approximate_curve(conversation, "oracle", caps)
    exact_curve = approximate_curve(conversation, "fifo", caps)
    marked = [int(caps[2]), int(caps[4]), int(caps[2])]
    checks = spot_checks(conversation, [sampled, exact_curve], marked)
    assert [(c.policy, c.capacity_blocks) for c in checks] == [
        ("oracle", int(caps[2])),
        ("oracle", int(caps[4])),
    ]
    for check in checks:
        swept = policy_mrc(conversation, "oracle", np.array([check.capacity_blocks])).token_hit_ratio[0]
        assert (
            check.exact == swept == exact_token_hit_ratios(conversation, "oracle", [check.capacity_blocks])[0]
        )
        assert check.curve == token_hit_at(sampled.curve, check.capacity_blocks)
        assert check.error == abs(check.curve - check.exact) <= sampled.max_abs_error
    worst = max(checks, key=lambda c: c.error)
    note = approximation_note([sampled], checks)
    assert f"off by at most: oracle {worst.error:.3f} (at {worst.capacity_blocks:,} blocks)" in note


def test_the_comparison_checks_its_sampled_curves_at_each_scenarios_hbm(conversation):
    defaults = whatif.default_scenarios(conversation.num_blocks)  # S4 is s3fifo: exact on this trace
    assert compare.compare(conversation, defaults, "conversation").spot_checks == ()
    scenarios = (*defaults[:3], dataclasses.replace(defaults[3], policy="oracle"))
    result = compare.compare(conversation, scenarios, "conversation")
    marked = sorted({r.total_hbm_blocks for r in result.results})
    assert [(c.policy, c.capacity_blocks) for c in result.spot_checks] == [("oracle", m) for m in marked]
