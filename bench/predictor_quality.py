"""How good a continuation predictor the learned policy needs: its space reduction as its predictions
are moved towards the truth (a diagnostic that reads the future; not a policy).

The online probabilities p are moved by beta in log-odds towards each request's outcome (did its
session send the next request within the horizon?): logit q = logit p + beta for a request that
continued, − beta for one that did not. Beta 0 is the policy as it is; larger beta ranks more
requests right, measured as the AUC (the chance a request that continued outranks one that did not).
Each q goes through the policy's own scoring (LearnedOptions.probabilities), block rules included.
An AUC gained another way need not help as much: docs/engine.md has the learners that show it.
`python -m bench.predictor_quality` prints the table docs/engine.md quotes, on both Mooncake traces.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from bench.bench_replay import REFERENCE_CAPACITY, SYNTHETIC, TRACE, hindsight_probabilities
from dashboard.core.types import Trace
from dashboard.engine.capacity import space_reduction_vs_lru
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import LearnedOptions, learned_request_keys

BETAS = (0.0, 0.03, 0.06, 0.1, 0.25, 0.5, 1.0, 2.0)


def auc(scores: np.ndarray, positive: np.ndarray) -> float:
    """P(a positive outranks a negative), ties counted half (the Mann-Whitney U over both counts)."""
    ranks = pd.Series(scores).rank(method="average").to_numpy()
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("auc needs at least one positive and one negative")
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def online_probabilities(trace: Trace, options: LearnedOptions) -> np.ndarray:
    """The learned policy's online p per request (its keys are log p + arrival / decay_s)."""
    return np.exp(learned_request_keys(trace, options) - trace.arrival_s / options.decay_s)


def nudged(p: np.ndarray, continued: np.ndarray, beta: float) -> np.ndarray:
    """p moved by beta in log-odds towards each outcome, kept inside (0, 1] as the policy asks."""
    logit = np.log(p) - np.log1p(-np.minimum(p, 1.0 - 1e-12))
    q = 1.0 / (1.0 + np.exp(-(logit + np.where(continued, beta, -beta))))
    return np.maximum(q, 1e-12)


def quality_rows(
    trace: Trace, capacity: int, betas: tuple[float, ...] = BETAS
) -> list[tuple[float, float, float]]:
    """(beta, AUC, space reduction vs LRU at capacity) per beta."""
    options = LearnedOptions()
    p = online_probabilities(trace, options)
    continued = hindsight_probabilities(trace, options.horizon_s) == 1.0
    rows = []
    for beta in betas:
        q = nudged(p, continued, beta)
        found = space_reduction_vs_lru(trace, "learned", capacity, LearnedOptions(probabilities=q))
        rows.append((beta, auc(q, continued), found.reduction))
    return rows


def main() -> None:
    for name, path, capacity in (("conversation", TRACE, REFERENCE_CAPACITY), ("synthetic", SYNTHETIC, None)):
        trace = read_mooncake(path)
        capacity = capacity or trace.num_blocks // 10
        print(f"{name} trace, LRU at {capacity:,} blocks: beta, AUC, space reduction")
        for beta, score, reduction in quality_rows(trace, capacity):
            print(f"  {beta:<5g} {score:.3f} {100 * reduction:6.2f} %", flush=True)


if __name__ == "__main__":
    sys.exit(main())
