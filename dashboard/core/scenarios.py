"""What-if scenarios and what a comparison says about each: inputs, the hit-rate waterfall, prefill load.

Plain frozen records: the What-if page builds Scenarios from its widgets, services/compare.py
replays them and returns a HitWaterfall and a PrefillLoad per scenario.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.core.types import TIER_NAMES

MAX_SCENARIOS = 4
DEFAULT_HARDWARE = "h100-sxm"
DEFAULT_MODEL = "llama-3.1-8b"
DEFAULT_WEIGHTS = (2.0, 2.0, 3.0)  # llm-d EPP default profile: queue, KV utilization, prefix
OVERLOAD_UTILIZATION = 1.0  # NOTE: at or past 100% busy an FCFS queue grows for as long as the trace lasts


@dataclass(frozen=True)
class Scenario:
    """One cluster to replay a trace through, as the What-if page states it (per-pod capacities)."""

    num_pods: int = 8
    router: str = "prefix"
    policy: str = "lru"
    hbm_blocks: int | None = None  # None: sized from the hardware and model profiles
    cpu_blocks: int = 0
    disk_blocks: int = 0
    hardware: str = DEFAULT_HARDWARE
    model: str = DEFAULT_MODEL
    queue_weight: float = DEFAULT_WEIGHTS[0]
    kv_weight: float = DEFAULT_WEIGHTS[1]
    prefix_weight: float = DEFAULT_WEIGHTS[2]
    seed: int = 0

    @property
    def weights(self) -> tuple[float, float, float]:
        """The EPP scorer weights (queue, KV utilization, prefix)."""
        return (self.queue_weight, self.kv_weight, self.prefix_weight)

    def validate(self, where: str = "scenario") -> None:
        """Raise ValueError naming the bad field."""
        if self.num_pods < 1:
            raise ValueError(f"{where}: pods must be at least 1, got {self.num_pods}")
        for name in ("hbm_blocks", "cpu_blocks", "disk_blocks"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{where}: {name} must not be negative, got {value}")
        if min(self.weights) < 0 or max(self.weights) <= 0:
            raise ValueError(f"{where}: scorer weights must be non-negative and not all zero")


@dataclass(frozen=True)
class HitWaterfall:
    """Where a scenario's token hit ratio goes: ceiling → routing loss → capacity loss → delivered by tier.

    ceiling: one cache that never evicts; pooled: one cache of the scenario's total capacity per
    tier (pods × per-pod blocks), same policy; delivered: the scenario itself, by serving tier.
    """

    ceiling: float
    pooled: float
    delivered_by_tier: tuple[tuple[str, float], ...]  # (tier, token hit ratio) in TIER_NAMES order

    @property
    def delivered(self) -> float:
        """The scenario's token hit ratio (every tier)."""
        return sum(v for _, v in self.delivered_by_tier)

    @property
    def lost_to_routing(self) -> float:
        """Pooled minus delivered: what splitting the cache over pods costs (negative: routing gains)."""
        return self.pooled - self.delivered

    @property
    def lost_to_capacity(self) -> float:
        """Ceiling minus pooled: what finite capacity and the eviction policy cost."""
        return self.ceiling - self.pooled

    def tier(self, name: str) -> float:
        """Token hit ratio served by tier name."""
        assert name in TIER_NAMES, name
        return dict(self.delivered_by_tier).get(name, 0.0)


@dataclass(frozen=True)
class PrefillLoad:
    """Prefill work arriving (uncached prompt tokens per second) against what the pods can compute."""

    arrival_tokens_per_s: float  # uncached prompt tokens over the trace's span
    capacity_tokens_per_s: float  # pods × tokens a pod computes per busy second at this request mix
    utilization: float  # busy seconds of loads and prefills / (pods × span)
    busiest_pod_utilization: float  # the same for the busiest pod alone

    @property
    def is_overloaded(self) -> bool:
        """True when the pods (or the busiest one) cannot keep up: its queue and TTFT grow all trace long."""
        return max(self.utilization, self.busiest_pod_utilization) >= OVERLOAD_UTILIZATION
