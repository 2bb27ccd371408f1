"""Compare what-if scenarios on one trace: replay each, pool its caches, and say where its hits went.

Per scenario (core/scenarios.py): the cluster replay's summary (engine/summary.py, the same
figures as `kvscope replay`), the same capacity pooled into one cache (pods × per-pod blocks in
each tier, same policy, one pod), and the prefill load against what the pods can compute. Per
trace: the exact LRU curve, whose last point (a cache holding every block) is the ceiling, and the
curve of every other policy a scenario uses (approximate on a large trace: services/policy_curves.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

import numpy as np

from dashboard.core.scenarios import DEFAULT_HARDWARE, DEFAULT_MODEL, HitWaterfall, PrefillLoad, Scenario
from dashboard.core.types import (
    TIER_NAMES,
    ClusterConfig,
    ReplayOutcome,
    RouterConfig,
    SampledCurve,
    TierConfig,
    Trace,
)
from dashboard.engine.mrc import MissRatioCurve, lru_mrc
from dashboard.engine.replay import simulate
from dashboard.engine.summary import ReplaySummary, summarize
from dashboard.services import replay
from dashboard.services.policy_curves import SpotCheck, approximate_curve, spot_checks

NUM_CURVE_POINTS = 40


@dataclass(frozen=True)
class ScenarioResult:
    """One scenario replayed: its summary, effective HBM per pod, pooled hit ratios and prefill load."""

    scenario: Scenario
    summary: ReplaySummary
    hbm_blocks: int  # per pod, as replayed (sized from the profiles when the scenario left it open)
    delivered_by_tier: tuple[tuple[str, float], ...]  # token hit ratio served by each tier
    pooled_by_tier: tuple[tuple[str, float], ...]  # token hit ratio of the pooled cache, by tier
    load: PrefillLoad

    @property
    def pooled(self) -> float:
        """Token hit ratio of one cache holding the whole cluster's capacity."""
        return sum(v for _, v in self.pooled_by_tier)

    @property
    def total_hbm_blocks(self) -> int:
        """HBM blocks over every pod."""
        return self.hbm_blocks * self.scenario.num_pods


@dataclass(frozen=True)
class Comparison:
    """Scenarios replayed on one trace, with the trace's LRU curve and ceiling."""

    trace_label: str  # what the user calls the trace (their file's name, a stored trace's name)
    num_requests: int
    num_blocks: int
    block_tokens: int
    duration_s: float
    curve: MissRatioCurve
    results: tuple[ScenarioResult, ...]
    names: tuple[str, ...]  # one per result: S1, S2, … as the page numbers its scenarios
    policy_curves: tuple[SampledCurve, ...] = ()  # one per policy other than LRU the scenarios use
    spot_checks: tuple[SpotCheck, ...] = ()  # the sampled ones against exact replays at each HBM marked

    @property
    def ceiling(self) -> float:
        """Token hit ratio of a cache that never evicts (the curve at every unique block)."""
        return ceiling_of(self.curve, self.num_blocks)

    def waterfall(self, index: int) -> HitWaterfall:
        """Scenario index's way from the ceiling to what it delivered."""
        result = self.results[index]
        return HitWaterfall(self.ceiling, result.pooled, result.delivered_by_tier)


def ceiling_of(curve: MissRatioCurve, num_blocks: int) -> float:
    """The curve's token hit ratio at a capacity holding every block (ValueError if it stops short)."""
    reach = np.flatnonzero(curve.capacity_blocks >= num_blocks)
    if reach.size == 0:
        raise ValueError(f"the curve stops at {curve.capacity_blocks.max()} of {num_blocks} blocks")
    return float(curve.token_hit_ratio[reach[0]])


def cluster_config(scenario: Scenario, block_tokens: int) -> ClusterConfig:
    """The engine's config for a scenario: replay.cluster_config, then its scorer weights and profiles."""
    scenario.validate()
    req = replay.ReplayRequest(
        num_pods=scenario.num_pods,
        router=scenario.router,
        policy=scenario.policy,
        hbm_blocks=scenario.hbm_blocks,
        hardware=scenario.hardware,
        model=scenario.model,
        cpu_blocks=scenario.cpu_blocks,
        disk_blocks=scenario.disk_blocks,
        seed=scenario.seed,
        scorer_weights=tuple(scenario.weights),
    )
    return replay.cluster_config(req, block_tokens)


def pooled_config(config: ClusterConfig) -> ClusterConfig:
    """One pod whose every tier holds what all of config's pods hold in that tier."""
    tiers = tuple(TierConfig(t.name, t.capacity_blocks * config.num_pods, t.policy) for t in config.tiers)
    return replace(config, num_pods=1, tiers=tiers, router=RouterConfig("round_robin"))


def tier_token_ratios(trace: Trace, outcome: ReplayOutcome) -> tuple[tuple[str, float], ...]:
    """Token hit ratio served by each tier."""
    total = max(int(trace.input_tokens.sum()), 1)
    per_tier = outcome.cached_tokens.sum(axis=0)
    return tuple((t, float(per_tier[i]) / total) for i, t in enumerate(TIER_NAMES))


def prefill_load(trace: Trace, outcome: ReplayOutcome, num_pods: int) -> PrefillLoad:
    """Uncached prompt tokens per second against the pods' busy time (loads and prefills) for them."""
    span_s = float(trace.arrival_s[-1] - trace.arrival_s[0]) if trace.num_requests > 1 else 0.0
    busy_s = np.bincount(outcome.pod, weights=outcome.load_s + outcome.prefill_s, minlength=num_pods)
    uncached = float(trace.input_tokens.sum() - outcome.cached_tokens.sum())
    if span_s <= 0:
        return PrefillLoad(float("nan"), float("nan"), 0.0, 0.0)
    total_busy = float(busy_s.sum())
    capacity = num_pods * uncached / total_busy if total_busy > 0 and uncached > 0 else float("nan")
    return PrefillLoad(
        arrival_tokens_per_s=uncached / span_s,
        capacity_tokens_per_s=capacity,
        utilization=total_busy / (num_pods * span_s),
        busiest_pod_utilization=float(busy_s.max()) / span_s,
    )


def run_scenario(trace: Trace, scenario: Scenario) -> ScenarioResult:
    """Replay scenario and its pooled twin; the summary equals `kvscope replay`'s for the same cluster."""
    config = cluster_config(scenario, trace.block_tokens)
    started = time.perf_counter()
    outcome = simulate(trace, config)
    summary = summarize(trace, outcome, config, elapsed_s=time.perf_counter() - started)
    hbm = config.tiers[0].capacity_blocks
    summary = replace(summary, config=asdict(scenario) | {"hbm_blocks": hbm})
    pooled = simulate(trace, pooled_config(config))
    return ScenarioResult(
        scenario,
        summary,
        hbm,
        tier_token_ratios(trace, outcome),
        tier_token_ratios(trace, pooled),
        prefill_load(trace, outcome, config.num_pods),
    )


def trace_curve(trace: Trace) -> MissRatioCurve:
    """The exact LRU curve of one cache, out to every unique block."""
    return lru_mrc(trace, num_points=NUM_CURVE_POINTS)


def curve_policies(scenarios: list[Scenario] | tuple[Scenario, ...]) -> list[str]:
    """The policies other than LRU the scenarios use, each once, in scenario order."""
    return list(dict.fromkeys(s.policy for s in scenarios if s.policy != "lru"))


def policy_curve(trace: Trace, policy: str, lru: MissRatioCurve, exact: bool = False) -> SampledCurve:
    """policy's curve at the LRU curve's capacities (sampled on a large trace unless exact)."""
    return approximate_curve(trace, policy, lru.capacity_blocks, exact)


def assemble(
    trace: Trace,
    label: str,
    curve: MissRatioCurve,
    results: list[ScenarioResult],
    names: list[str] | None = None,
    policy_curves: tuple[SampledCurve, ...] = (),
    checks: tuple[SpotCheck, ...] = (),
) -> Comparison:
    """A Comparison from its parts (the page computes and caches them one by one); names default to S1…"""
    duration = float(trace.arrival_s[-1] - trace.arrival_s[0]) if trace.num_requests else 0.0
    names = names if names is not None else [scenario_name(i) for i in range(len(results))]
    assert len(names) == len(results)
    return Comparison(
        label,
        trace.num_requests,
        trace.num_blocks,
        trace.block_tokens,
        duration,
        curve,
        tuple(results),
        tuple(names),
        policy_curves,
        checks,
    )


def scenario_name(index: int) -> str:
    """S1, S2, … for scenario index 0, 1, …"""
    return f"S{index + 1}"


def caption_parts(comparison: Comparison) -> tuple[str, str, str]:
    """(inputs, time window, data source) of a comparison, for an exported chart's caption."""
    inputs = "; ".join(
        f"{name}: {describe(r.scenario, r.hbm_blocks)}"
        for name, r in zip(comparison.names, comparison.results, strict=True)
    )
    window = f"{comparison.duration_s / 3600:.2f} h of trace ({comparison.num_requests:,} requests)"
    return f"what-if {inputs}", window, comparison.trace_label


def compare(
    trace: Trace,
    scenarios: tuple[Scenario, ...],
    label: str,
    on_progress: Callable[[int, int], None] | None = None,
) -> Comparison:
    """Replay every scenario (on_progress(done, total) after each) and the trace's curves, uncached."""
    results = []
    for i, scenario in enumerate(scenarios):
        results.append(run_scenario(trace, scenario))
        if on_progress is not None:
            on_progress(i + 1, len(scenarios))
    lru = trace_curve(trace)
    others = tuple(policy_curve(trace, p, lru) for p in curve_policies(scenarios))
    checks = tuple(spot_checks(trace, list(others), marked_capacities(results)))
    return assemble(trace, label, lru, results, policy_curves=others, checks=checks)


def marked_capacities(results: list[ScenarioResult] | tuple[ScenarioResult, ...]) -> list[int]:
    """The capacities the miss-ratio curve marks: each scenario's HBM over all pods (at least 1 block)."""
    return sorted({max(r.total_hbm_blocks, 1) for r in results})


def describe(scenario: Scenario, hbm_blocks: int | None = None) -> str:
    """A scenario in one line: pods, router, policy, capacity per pod, profiles."""
    hbm = scenario.hbm_blocks if scenario.hbm_blocks is not None else hbm_blocks
    tiers = [f"HBM {hbm:,}" if hbm is not None else "HBM from profile"]
    tiers += [f"CPU {scenario.cpu_blocks:,}"] if scenario.cpu_blocks else []
    tiers += [f"disk {scenario.disk_blocks:,}"] if scenario.disk_blocks else []
    profile = (
        ""
        if (scenario.hardware, scenario.model) == (DEFAULT_HARDWARE, DEFAULT_MODEL)
        else f" · {scenario.hardware}/{scenario.model}"
    )
    return (
        f"{scenario.num_pods} pod{'s' if scenario.num_pods > 1 else ''} · {scenario.router} · "
        f"{scenario.policy} · {' + '.join(tiers)} blocks/pod{profile}"
    )
