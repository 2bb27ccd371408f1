"""The embedded sample's story: round robin, then prefix-aware routing, a restart and a burst."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dashboard.core.types import ClusterConfig, ClusterEvent, ReplayOutcome, RouterConfig, TierConfig, Trace
from dashboard.engine.replay import simulate
from dashboard.sim.dialects import DEFAULT_DIALECT, Dialect
from dashboard.sim.exporter import ExportSpec, Series, export_series
from dashboard.sim.workload import WorkloadSpec, generate_workload

HOUR_S = 3600.0


@dataclass(frozen=True)
class Story:
    """One scenario run: the cluster, its events and annotations, the trace and what it exported."""

    config: ClusterConfig
    events: tuple[ClusterEvent, ...]
    annotations: tuple[tuple[float, str, str], ...]  # (time_s, kind, text)
    trace: Trace
    outcome: ReplayOutcome
    spec: ExportSpec
    scrape_s: np.ndarray
    series: list[Series]


def sample_story(
    seed: int = 0, hours: float = 6.0, num_pods: int = 8, scrape_interval_s: float = 15.0
) -> Story:
    """The sample cluster: events at 1/3, 2/3 and 5/6 of the run (hours 2, 4 and 5 of six)."""
    duration = hours * HOUR_S
    switch_s, restart_s, burst_s = duration / 3, duration * 2 / 3, duration * 5 / 6
    burst_end = burst_s + min(0.5 * HOUR_S, duration / 12)
    workload = WorkloadSpec(
        duration_s=duration, sessions_per_s=0.03 * num_pods, burst=(burst_s, burst_end, 4.0)
    )
    trace = generate_workload(seed, workload)
    # NOTE: HBM per pod is kept small (Llama-3.1-8B with most HBM given to other tenants' models)
    # so that the burst overflows it into the CPU tier; the CPU tier is 6× larger.
    config = ClusterConfig(
        num_pods=num_pods,
        tiers=(TierConfig("gpu", 3_000), TierConfig("cpu", 18_000)),
        router=RouterConfig("round_robin"),
        hardware="h100-sxm",
        model="llama-3.1-8b",
    )
    restart_pod = min(3, num_pods - 1)
    events = (
        ClusterEvent(switch_s, "router", router=RouterConfig("prefix")),
        ClusterEvent(restart_s, "restart", pod=restart_pod),
    )
    outcome = simulate(trace, config, events)
    spec = ExportSpec(
        pod_names=tuple(f"vllm-{i}" for i in range(num_pods)), restarts=((restart_s, restart_pod),)
    )
    scrape_s = np.arange(scrape_interval_s, duration + 1e-9, scrape_interval_s)
    annotations = (
        (
            switch_s,
            "routing",
            "EPP switched from round robin to prefix-aware scoring (queue 2, kv 2, prefix 3)",
        ),
        (restart_s, "restart", f"pod {spec.pod_names[restart_pod]} restarted: counters reset, cache empty"),
        (
            burst_s,
            "burst",
            "traffic burst ×4 with long pasted documents: HBM fills, reuse moves to the CPU tier",
        ),
    )
    return Story(
        config,
        events,
        annotations,
        trace,
        outcome,
        spec,
        scrape_s,
        export_series(trace, outcome, config, spec, scrape_s),
    )


def live_story(
    seed: int = 0,
    hours: float = 6.0,
    num_pods: int = 8,
    restarts: tuple[tuple[float, int], ...] = (),
    dialect: Dialect = DEFAULT_DIALECT,
) -> Story:
    """A cluster for serve-sim: prefix-aware routing from the start, restarts where asked."""
    duration = hours * HOUR_S
    trace = generate_workload(seed, WorkloadSpec(duration_s=duration, sessions_per_s=0.03 * num_pods))
    config = ClusterConfig(
        num_pods=num_pods,
        tiers=(TierConfig("gpu", 3_000), TierConfig("cpu", 18_000)),
        router=RouterConfig("prefix"),
        hardware="h100-sxm",
        model="llama-3.1-8b",
    )
    for _, pod in restarts:
        if not 0 <= pod < num_pods:
            raise ValueError(f"--restart pod {pod} is not in 0..{num_pods - 1}")
    events = tuple(ClusterEvent(t, "restart", pod=p) for t, p in restarts)
    outcome = simulate(trace, config, events)
    spec = ExportSpec(
        pod_names=tuple(f"vllm-{i}" for i in range(num_pods)), restarts=tuple(restarts), dialect=dialect
    )
    annotations = tuple((t, "restart", f"pod vllm-{p} restarted") for t, p in restarts)
    return Story(config, events, annotations, trace, outcome, spec, np.zeros(0), [])
