"""What a replay means: hit ratios overall, per tier and per pod, TTFT, load balance."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dashboard.core.types import TIER_NAMES, ClusterConfig, ReplayOutcome, Trace

QUANTILES = {"p50": 50, "p90": 90, "p99": 99}


@dataclass(frozen=True)
class ReplaySummary:
    """The figures `kvscope replay --json` prints (to_dict) and the UI shows."""

    requests: int
    block_accesses: int
    block_hits: int
    block_hit_ratio: float
    token_hit_ratio: float
    prefill_tokens_saved: int
    tiers: dict[str, dict[str, int]]
    ttft_s: dict[str, float]
    ttft_by_outcome_s: dict[str, dict[str, float]]
    pods: dict[str, dict[str, float]]
    load_imbalance: float  # max / mean requests per pod
    elapsed_s: float = 0.0
    config: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """A JSON-ready dict."""
        return dict(self.__dict__)


def outcome_classes(outcome: ReplayOutcome) -> np.ndarray:
    """Per request: 'miss', 'partial' or 'full', suffixed by the lowest tier that served a hit."""
    hits = outcome.hit_blocks.sum(axis=1)
    kind = np.where(hits == 0, "miss", np.where(hits >= outcome.num_blocks, "full", "partial"))
    lower = outcome.hit_blocks[:, 1:].sum(axis=1) > 0
    return np.where((hits > 0) & lower, np.char.add(kind, "+offload"), kind)


def quantiles_s(values: np.ndarray) -> dict[str, float]:
    """p50 / p90 / p99 of values (NaN when empty)."""
    if values.size == 0:
        return {k: float("nan") for k in QUANTILES}
    return {k: float(np.percentile(values, q)) for k, q in QUANTILES.items()}


def summarize(trace: Trace, outcome: ReplayOutcome, config: ClusterConfig, elapsed_s: float = 0.0) -> ReplaySummary:
    """Every figure of a replay from its per-request outcome."""
    num_accesses = trace.num_block_accesses
    block_hits = int(outcome.hit_blocks.sum())
    token_hits = int(outcome.cached_tokens.sum())
    num_tokens = int(trace.input_tokens.sum())
    tiers = {
        name: {"block_hits": int(outcome.hit_blocks[:, t].sum()), "token_hits": int(outcome.cached_tokens[:, t].sum())}
        for t, name in enumerate(TIER_NAMES)
    }
    classes = outcome_classes(outcome)
    per_pod_requests = np.bincount(outcome.pod, minlength=config.num_pods)
    per_pod_hits = np.bincount(outcome.pod, weights=outcome.hit_blocks.sum(axis=1), minlength=config.num_pods)
    per_pod_blocks = np.bincount(outcome.pod, weights=outcome.num_blocks, minlength=config.num_pods)
    pods = {
        str(p): {
            "requests": int(per_pod_requests[p]),
            "block_hit_ratio": float(per_pod_hits[p] / per_pod_blocks[p]) if per_pod_blocks[p] else 0.0,
        }
        for p in range(config.num_pods)
    }
    mean_requests = per_pod_requests.mean() if per_pod_requests.size else 0.0
    return ReplaySummary(
        requests=trace.num_requests,
        block_accesses=num_accesses,
        block_hits=block_hits,
        block_hit_ratio=block_hits / num_accesses if num_accesses else 0.0,
        token_hit_ratio=token_hits / num_tokens if num_tokens else 0.0,
        prefill_tokens_saved=token_hits,
        tiers=tiers,
        ttft_s=quantiles_s(outcome.ttft_s),
        ttft_by_outcome_s={str(c): quantiles_s(outcome.ttft_s[classes == c]) for c in np.unique(classes)},
        pods=pods,
        load_imbalance=float(per_pod_requests.max() / mean_requests) if mean_requests else 0.0,
        elapsed_s=elapsed_s,
    )
