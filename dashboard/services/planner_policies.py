"""What a plan's pooled capacity gives under other eviction policies than LRU.

The planner sizes pods with pooled LRU (services/planner.py). For each hardware option's answer,
this replays the whole trace through one cache of the same pooled capacity (pods × max(HBM, CPU
tier) blocks, as the planner pools them) under each other policy: exact figures, a few replays
(one per policy and distinct capacity). LRU's own figure is the plan's, which an exact LRU replay
at that capacity equals (tested). The page draws each policy's curve beside them (sampled on a
large trace: services/policy_curves.py), and the replays say how far that curve is off there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from dashboard.core.types import SampledCurve, Trace
from dashboard.engine.mrc import default_capacities
from dashboard.services.planner import HardwarePlan, Plan
from dashboard.services.policy_curves import (
    SpotCheck,
    approximate_curve,
    exact_token_hit_ratios,
    token_hit_at,
)

NUM_POINTS = 40


@dataclass(frozen=True)
class PolicyAtPlan:
    """One hardware option's planned pods and pooled capacity, and each policy's token hit ratio there."""

    hardware: str
    num_pods: int
    pooled_blocks: int
    token_hit_ratio: dict[str, float]  # by policy, "lru" first (the plan's own figure); exact replays


def planner_curve(trace: Trace, policy: str, exact: bool = False) -> SampledCurve:
    """policy's curve of one cache over the trace's whole range of capacities (sampled on a large
    trace unless exact)."""
    return approximate_curve(trace, policy, default_capacities(trace.num_blocks, NUM_POINTS), exact)


def pooled_blocks(option: HardwarePlan) -> int:
    """The blocks the planner pools for an answer's GPU-or-CPU hits: pods × max(HBM, CPU tier) per pod."""
    assert option.num_pods is not None
    return option.num_pods * max(option.hbm_blocks_per_pod, option.cpu_blocks_per_pod)


def at_plan(
    trace: Trace,
    plan: Plan,
    policies: list[str] | tuple[str, ...],
    on_replayed: Callable[[], None] | None = None,
) -> list[PolicyAtPlan]:
    """Per hardware option with an answer: each policy's token hit ratio at its pooled capacity, by an
    exact replay of one cache that size (each policy and capacity replayed once, a thread per core;
    on_replayed as each replay ends: plan_replays of them)."""
    answered = _answered(plan)
    capacities = _pooled_capacities(answered)
    exact = {
        (p, int(c)): r
        for p in policies
        for c, r in zip(capacities, exact_token_hit_ratios(trace, p, capacities, on_replayed), strict=True)
    }
    return [
        PolicyAtPlan(
            o.hardware,
            o.num_pods,
            pooled_blocks(o),
            {"lru": o.point.token_hit_ratio} | {p: exact[p, pooled_blocks(o)] for p in policies},
        )
        for o in answered
    ]


def plan_replays(plan: Plan, policies: list[str] | tuple[str, ...]) -> int:
    """How many replays at_plan runs: one per policy and distinct pooled capacity."""
    return len(policies) * _pooled_capacities(_answered(plan)).size


def _answered(plan: Plan) -> list[HardwarePlan]:
    return [o for o in plan.options if o.num_pods is not None and o.point is not None]


def _pooled_capacities(answered: list[HardwarePlan]) -> np.ndarray:
    """The distinct pooled capacities of the answers, ascending: what at_plan replays per policy."""
    return np.array(sorted({pooled_blocks(o) for o in answered}), np.int64)


def curve_checks(readouts: list[PolicyAtPlan], curves: list[SampledCurve]) -> list[SpotCheck]:
    """Each sampled curve against the exact readouts at the plans' pooled capacities (each once)."""
    seen = {r.pooled_blocks: r.token_hit_ratio for r in readouts}
    return [
        SpotCheck(c.policy, cap, ratios[c.policy], token_hit_at(c.curve, cap))
        for c in curves
        if not c.is_exact
        for cap, ratios in sorted(seen.items())
    ]


def to_dict(readouts: list[PolicyAtPlan]) -> dict:
    """The `kvscope plan --policies --json` object's `policies`."""
    return {
        "method": "an exact replay of the whole trace through one cache of each pooled capacity",
        "at_plan": [asdict(r) for r in readouts],
    }
