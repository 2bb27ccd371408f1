"""bench/predictor_quality.py: its AUC is the pairwise one, beta 0 is the policy as it is, and moving
the predictions towards the truth ranks more requests right."""

from __future__ import annotations

import numpy as np
import pytest

from bench.bench_replay import REFERENCE_CAPACITY, TRACE, hindsight_probabilities
from bench.predictor_quality import auc, nudged, online_probabilities, quality_rows
from dashboard.engine.capacity import space_reduction_vs_lru
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import LearnedOptions


def pairwise_auc(scores: np.ndarray, positive: np.ndarray) -> float:
    above = [float(p > n) + 0.5 * float(p == n) for p in scores[positive] for n in scores[~positive]]
    return sum(above) / len(above)


@pytest.mark.parametrize("seed", range(5))
def test_auc_counts_every_pair_with_ties_as_half(seed):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 6, 60).astype(float)  # NOTE: few values, so many ties
    positive = rng.random(60) < 0.4
    assert auc(scores, positive) == pytest.approx(pairwise_auc(scores, positive), abs=1e-12)


def test_auc_needs_both_outcomes():
    with pytest.raises(ValueError, match="positive and one negative"):
        auc(np.array([0.1, 0.2]), np.array([True, True]))


def test_nudging_by_zero_keeps_the_probabilities_and_more_ranks_more_right():
    p = np.array([0.2, 0.5, 0.9, 0.4, 1.0])
    continued = np.array([False, True, False, True, True])
    assert nudged(p, continued, 0.0)[:4] == pytest.approx(p[:4], rel=1e-9)
    assert np.all((nudged(p, continued, 1.0) > 0) & (nudged(p, continued, 1.0) <= 1))
    assert auc(nudged(p, continued, 2.0), continued) > auc(p, continued)


def test_beta_zero_is_the_online_policy_and_truth_raises_auc_and_reduction():
    trace = read_mooncake(TRACE)
    (b0, auc0, r0), (b1, auc1, r1) = quality_rows(trace, REFERENCE_CAPACITY, (0.0, 0.25))
    assert space_reduction_vs_lru(trace, "learned", REFERENCE_CAPACITY).reduction == r0
    continued = hindsight_probabilities(trace) == 1.0
    # NOTE: the log-odds round trip moves a probability by an ulp, which can split a tie
    assert auc0 == pytest.approx(auc(online_probabilities(trace, LearnedOptions()), continued), abs=1e-5)
    assert 0.5 < auc0 < auc1 and r0 < r1
