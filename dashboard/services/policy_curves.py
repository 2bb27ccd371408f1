"""One cache's hit ratio versus its capacity for any eviction policy, as the pages draw it.

LRU's curve is exact in one pass, FIFO's in passes serving 32 capacities each (mrc_fifo.py) and
LFU's from a heap-free replay per capacity (policies/lfu.py). Another policy's exact curve takes one
replay per capacity through a slower kernel, so
on a trace of more than exact_up_to(policy) block accesses the pages draw a miniature simulation
of a sampled share of the trace instead (engine/mrc_sampled.py, docs/whatif.md), labelled as
approximate with the worst error measured at its rate. Smaller traces get the exact sweep: it is
quick there, and a sample of a few hundred requests would say little. A page's "exact curves"
switch asks for the exact sweep on any trace.

Where a page marks capacities (a What-if scenario's HBM over all pods, a plan's pooled capacity),
each sampled curve is also checked there against an exact replay of one cache that size
(spot_checks): a few replays say how far the curve is off on this trace, where the bound above
only says how far it was on the bundled ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dashboard.core.types import MissRatioCurve, SampledCurve, Trace
from dashboard.engine.mrc import curve_from_hits, exact_is_quick, replay_each
from dashboard.engine.mrc_sampled import sampled_policy_mrc
from dashboard.engine.policies import POLICIES, policy_info

# NOTE: an exact 45-point sweep of the conversation trace (288,500 accesses) takes 0.04 s for FIFO,
# 0.21 s for S3-FIFO and 0.27 s for ARC, where its sampled curves missed by up to 0.055; the policies
# on lazy heaps replay 3-8× slower (the oracle 0.83 s, learned 1.7 s there; 0.23-0.56 s on the
# synthetic trace's 122k accesses)
EXACT_UP_TO_ACCESSES = 500_000
HEAP_EXACT_UP_TO_ACCESSES = 200_000  # a policy on lazy heaps (PolicyInfo.uses_heap)
EXACT = 1.0  # sampling rate that keeps every request: sampled_policy_mrc then replays the whole trace


def other_policies() -> list[str]:
    """Every registered eviction policy but LRU, for the pickers that compare them with it."""
    return [name for name in POLICIES if name != "lru"]


def exact_up_to(policy: str) -> int:
    """The most block accesses a trace may hold for the pages to draw policy's exact sweep by default."""
    return HEAP_EXACT_UP_TO_ACCESSES if policy_info(policy).uses_heap else EXACT_UP_TO_ACCESSES


def exact_limits() -> str:
    """exact_up_to in words, for the pages' help: '500,000 block accesses (200,000 for oracle, …; fifo's
    and lfu's curves are always exact)'."""
    heavy = [name for name in other_policies() if policy_info(name).uses_heap and not exact_is_quick(name)]
    always = [f"{name}'s" for name in other_policies() if exact_is_quick(name)]
    return (
        f"{EXACT_UP_TO_ACCESSES:,} block accesses ({HEAP_EXACT_UP_TO_ACCESSES:,} for {_listed(heavy)}; "
        f"{_listed(always)} {'curve is' if len(always) == 1 else 'curves are'} always exact)"
    )


def _listed(names: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def reference_note() -> str:
    """Which policies are references that read the future (a ceiling, not something to deploy); ''
    when none is."""
    names = [name for name in other_policies() if policy_info(name).is_reference]
    if not names:
        return ""
    return f"{' and '.join(names)} read{'s' if len(names) == 1 else ''} the future: a ceiling, not something to deploy."


def approximate_curve(trace: Trace, policy: str, capacities: np.ndarray, exact: bool = False) -> SampledCurve:
    """policy's curve at capacities: exact for LRU, FIFO and LFU (exact_is_quick), small traces and when asked, else
    sampled at the default rate (exact too when that sample holds no request of the trace)."""
    policy_info(policy)  # NOTE: an unknown policy raises here, not as an empty sample below
    if exact or exact_is_quick(policy) or trace.num_block_accesses <= exact_up_to(policy):
        return sampled_policy_mrc(trace, policy, capacities, rate=EXACT)
    try:
        return sampled_policy_mrc(trace, policy, capacities)
    except ValueError:  # the sample keeps no request: every subtree hashed above the rate
        return sampled_policy_mrc(trace, policy, capacities, rate=EXACT)


@dataclass(frozen=True)
class SpotCheck:
    """A sampled curve against an exact replay of one cache at a capacity a page marks."""

    policy: str
    capacity_blocks: int
    exact: float  # token hit ratio of the exact replay
    curve: float  # the curve's token hit ratio there (token_hit_at)

    @property
    def error(self) -> float:
        """|curve − exact|."""
        return abs(self.curve - self.exact)


def exact_token_hit_ratios(
    trace: Trace,
    policy: str,
    capacities: list[int] | np.ndarray,
    on_replayed: Callable[[], None] | None = None,
) -> list[float]:
    """Token hit ratio of one cache of each capacity under policy: exact replays of the whole trace, on
    a thread per core (replay_each, calling on_replayed as each ends)."""
    caps = np.asarray(capacities, np.int64)
    hits = replay_each(trace, caps, policy, on_replayed=on_replayed)
    return curve_from_hits(trace, caps, hits).token_hit_ratio.tolist()


def spot_checks(trace: Trace, curves: list[SampledCurve], capacities: list[int]) -> list[SpotCheck]:
    """Each sampled curve against an exact replay at each capacity (each once, ascending); exact curves
    need none."""
    caps = sorted(set(capacities))
    return [
        SpotCheck(c.policy, cap, exact, token_hit_at(c.curve, cap))
        for c in curves
        if not c.is_exact
        for cap, exact in zip(caps, exact_token_hit_ratios(trace, c.policy, caps), strict=True)
    ]


def token_hit_at(curve: MissRatioCurve, capacity_blocks: float) -> float:
    """The curve's token hit ratio at a capacity, interpolated linearly in log capacity between its
    points (its first point below, its last above: the curve's ends hold there)."""
    caps = np.maximum(curve.capacity_blocks.astype(np.float64), 1.0)
    return float(np.interp(np.log(max(capacity_blocks, 1.0)), np.log(caps), curve.token_hit_ratio))


def approximation_note(
    curves: list[SampledCurve] | tuple[SampledCurve, ...],
    checks: list[SpotCheck] | tuple[SpotCheck, ...] = (),
) -> str:
    """How the curves of policies other than LRU were made and how far off they were where checked,
    or '' when all are exact."""
    sampled = [c for c in curves if not c.is_exact]
    if not sampled:
        return ""
    bounds = ", ".join(
        f"{c.policy} ±{c.max_abs_error:.2f}" if c.max_abs_error is not None else f"{c.policy} not measured"
        for c in sampled
    )
    return (
        f"Curves marked sampled are approximate: each replays about {sampled[0].rate:.0%} of the trace's "
        f"prefix subtrees ({sampled[0].num_requests_sampled:,} requests) through caches scaled by the same "
        f"share (a higher share, or the whole trace over windows of time, near the size of the prefixes "
        f"every request shares), corrected by the "
        f"exact LRU curve. Worst error measured on the bundled traces at this "
        f"rate: {bounds} (a measurement, not a guarantee; docs/whatif.md).{_checked(checks)} Switch on "
        f"exact curves, or run `kvscope mrc TRACE --policy P`, for the exact sweep."
    )


def _checked(checks: list[SpotCheck] | tuple[SpotCheck, ...]) -> str:
    """' On this trace, against exact replays at the marked capacities: …' or '' without checks."""
    if not checks:
        return ""
    worst: dict[str, SpotCheck] = {}
    for c in checks:
        if c.policy not in worst or c.error > worst[c.policy].error:
            worst[c.policy] = c
    offs = ", ".join(f"{p} {c.error:.3f} (at {c.capacity_blocks:,} blocks)" for p, c in worst.items())
    return f" On this trace, against exact replays at the capacities marked ×, the curves are off by at most: {offs}."
