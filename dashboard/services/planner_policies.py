"""What a plan's pooled capacity would give under other eviction policies than LRU.

The planner sizes pods with pooled LRU (services/planner.py). For each hardware option's answer,
this reads the token hit ratio another policy would reach at the same pooled capacity (pods ×
max(HBM, CPU tier) blocks, as the planner pools them) off that policy's curve — approximate on a
large trace (services/policy_curves.py). The curves are read as a difference from the LRU curve
at the same capacity, added to the plan's own exact LRU figure: the curves' interpolation between
their points then cancels, and LRU's own row is the plan's figure exactly.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from dashboard.core.types import SampledCurve, Trace
from dashboard.engine.mrc import default_capacities
from dashboard.services.planner import HardwarePlan, Plan
from dashboard.services.policy_curves import approximate_curve, token_hit_at

NUM_POINTS = 40


@dataclass(frozen=True)
class PolicyAtPlan:
    """One hardware option's planned pods and pooled capacity, and each policy's token hit ratio there."""

    hardware: str
    num_pods: int
    pooled_blocks: int
    token_hit_ratio: dict[str, float]  # by policy, "lru" first (the plan's own figure)


def planner_curve(trace: Trace, policy: str, exact: bool = False) -> SampledCurve:
    """policy's curve of one cache over the trace's whole range of capacities (sampled on a large
    trace unless exact)."""
    return approximate_curve(trace, policy, default_capacities(trace.num_blocks, NUM_POINTS), exact)


def pooled_blocks(option: HardwarePlan, num_pods: int) -> int:
    """The blocks the planner pools for GPU-or-CPU hits: pods × max(HBM, CPU tier) per pod."""
    return num_pods * max(option.hbm_blocks_per_pod, option.cpu_blocks_per_pod)


def at_plan(plan: Plan, lru: SampledCurve, others: list[SampledCurve]) -> list[PolicyAtPlan]:
    """Per hardware option with an answer: each policy's token hit ratio at its pooled capacity."""
    rows = []
    ceiling = float(lru.curve.token_hit_ratio[-1])  # NOTE: the curve's last point holds every block
    for option in plan.options:
        if option.num_pods is None or option.point is None:
            continue
        blocks = pooled_blocks(option, option.num_pods)
        exact = option.point.token_hit_ratio
        ratios = {"lru": exact}
        for other in others:
            shift = token_hit_at(other.curve, blocks) - token_hit_at(lru.curve, blocks)
            ratios[other.policy] = float(np.clip(exact + shift, 0.0, ceiling))
        rows.append(PolicyAtPlan(option.hardware, option.num_pods, blocks, ratios))
    return rows


def to_dict(readouts: list[PolicyAtPlan], curves: list[SampledCurve]) -> dict:
    """The `kvscope plan --policies --json` object's `policies`: how each curve was made, and the readouts."""
    return {
        "curves": [
            {
                "policy": c.policy,
                "label": c.label(),
                "approximate": not c.is_exact,
                "rate": c.rate,
                "max_abs_error": c.max_abs_error,
            }
            for c in curves
        ],
        "at_plan": [asdict(r) for r in readouts],
    }
