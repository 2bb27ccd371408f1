"""Simulator throughput on the sample workload (issue 2): requests/s and block accesses/s."""

from __future__ import annotations

from dataclasses import replace

from bench.run import Result, timed_median
from dashboard.core.types import RouterConfig, TierConfig
from dashboard.engine.replay import simulate
from dashboard.sim.scenario import sample_story

COMMAND = "python -m bench.run bench_sim"


def run() -> list[Result]:
    """Median wall time of the sample's full cluster simulation vs a 1-pod, 1-tier baseline."""
    story = sample_story(seed=0)
    trace, config, events = story.trace, story.config, story.events
    simulate(trace, config, events)  # warm the compile cache
    cluster_s = timed_median(lambda: simulate(trace, config, events), repeats=5)
    single = replace(
        config, num_pods=1, tiers=(TierConfig("gpu", 24_000),), router=RouterConfig("round_robin")
    )
    simulate(trace, single)
    single_s = timed_median(lambda: simulate(trace, single), repeats=5)
    n, accesses = trace.num_requests, trace.num_block_accesses
    note = (
        f"6 h sample workload: {n:,} requests, {accesses:,} block accesses; 8 pods × (HBM + CPU tier), "
        "prefix router with a routing switch and a restart; baseline: the same trace on one pod, one tier, round robin"
    )
    return [
        Result(
            "simulator, sample cluster: requests/s",
            COMMAND,
            n / cluster_s,
            "req/s",
            "1 pod, 1 tier",
            n / single_s,
            notes=note,
        ),
        Result(
            "simulator, sample cluster: block accesses/s",
            COMMAND,
            accesses / cluster_s,
            "accesses/s",
            "1 pod, 1 tier",
            accesses / single_s,
        ),
    ]
