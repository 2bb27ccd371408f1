"""Frozen records passed between layers: the canonical trace and what a replay returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

TIER_NAMES = ("gpu", "cpu", "disk")  # index = tier number in per-tier arrays
UNKNOWN = -1  # int sentinel for "not known" in integer arrays (sessions, turns, pods)


@dataclass(frozen=True, eq=False)
class Trace:
    """A canonical request trace: request i reads blocks block_ids[offsets[i]:offsets[i+1]].

    Block ids are dense (0..num_blocks-1) chained prefix hashes: the same id at the same
    position means the same prefix up to and including that block. Requests are sorted by
    arrival. Unknown integers are UNKNOWN (-1), unknown floats NaN.
    """

    arrival_s: np.ndarray  # float64 [n], seconds since the trace start, non-decreasing
    offsets: np.ndarray  # int64 [n+1], offsets[0] == 0
    block_ids: np.ndarray  # int32 [offsets[-1]], dense ids
    input_tokens: np.ndarray  # int64 [n]
    output_tokens: np.ndarray  # int64 [n]
    block_tokens: int
    num_blocks: int
    session_ids: np.ndarray  # int64 [n], UNKNOWN when the source has none and none was inferred
    turns: np.ndarray  # int32 [n], 0-based turn within the session, UNKNOWN if unknown
    type_codes: np.ndarray  # int16 [n], index into type_names, UNKNOWN if unknown
    type_names: tuple[str, ...] = ()
    tenant_ids: np.ndarray | None = None  # int32 [n] or None
    source: str = ""  # file or generator the trace came from

    @property
    def num_requests(self) -> int:
        """Number of requests."""
        return int(self.arrival_s.shape[0])

    @property
    def num_block_accesses(self) -> int:
        """Total blocks over all requests."""
        return int(self.offsets[-1])

    def blocks_of(self, i: int) -> np.ndarray:
        """Block ids of request i, head first."""
        return self.block_ids[self.offsets[i] : self.offsets[i + 1]]

    def validate(self) -> None:
        """Raise ValueError if the arrays are not a well-formed canonical trace."""
        n = self.num_requests
        checks = [
            (self.offsets.shape == (n + 1,), "offsets must have num_requests + 1 entries"),
            (n == 0 or self.offsets[0] == 0, "offsets[0] must be 0"),
            (bool(np.all(np.diff(self.offsets) >= 0)), "offsets must be non-decreasing"),
            (self.block_ids.shape[0] == self.offsets[-1], "block_ids length must equal offsets[-1]"),
            (n == 0 or bool(np.all(np.diff(self.arrival_s) >= 0)), "arrivals must be sorted"),
            (self.block_tokens > 0, "block_tokens must be positive"),
            (
                self.block_ids.size == 0
                or (self.block_ids.min() >= 0 and self.block_ids.max() < self.num_blocks),
                "block ids must be dense in 0..num_blocks-1",
            ),
        ]
        for col in ("input_tokens", "output_tokens", "session_ids", "turns", "type_codes"):
            checks.append((getattr(self, col).shape == (n,), f"{col} must have num_requests entries"))
        for ok, message in checks:
            if not ok:
                raise ValueError(f"trace {self.source or '<memory>'}: {message}")


@dataclass(frozen=True)
class TierConfig:
    """One cache tier of a pod: its capacity in blocks and its eviction policy."""

    name: str  # one of TIER_NAMES
    capacity_blocks: int
    policy: str = "lru"


@dataclass(frozen=True)
class RouterConfig:
    """Which router and, for scoring routers, the EPP scorer weights."""

    name: str = "prefix"
    queue_weight: float = 2.0
    kv_weight: float = 2.0
    prefix_weight: float = 3.0
    seed: int = 0


@dataclass(frozen=True)
class ClusterConfig:
    """A cluster to replay a trace through: pods × tiers, a router and a latency profile."""

    num_pods: int = 1
    tiers: tuple[TierConfig, ...] = (TierConfig("gpu", 18_279),)
    router: RouterConfig = field(default_factory=RouterConfig)
    hardware: str = "h100-sxm"
    model: str = "llama-3.1-8b"
    enable_offload: bool = True  # demote evicted blocks to the next tier


@dataclass(frozen=True)
class ClusterEvent:
    """Something that happens to the cluster mid-replay, at time_s (trace seconds).

    kind "restart": pod `pod` restarts, its caches are emptied (its counters reset downstream);
    kind "router": from time_s on, requests are routed by `router`.
    """

    time_s: float
    kind: str
    pod: int = UNKNOWN
    router: RouterConfig | None = None


@dataclass(frozen=True, eq=False)
class ReplayOutcome:
    """Per-request results of replaying a trace through a cluster (arrays of length n).

    hit_blocks[i, t] counts the prefix blocks of request i served by tier t (TIER_NAMES order);
    the tiers' hits are consecutive: gpu first, then cpu, then disk, stopping at the first miss.
    """

    pod: np.ndarray  # int32 [n]
    hit_blocks: np.ndarray  # int32 [n, len(TIER_NAMES)]
    num_blocks: np.ndarray  # int32 [n], blocks in the request
    cached_tokens: np.ndarray  # int64 [n, len(TIER_NAMES)], min(hits * block_tokens, input) split by tier
    queue_s: np.ndarray  # float64 [n], waiting for the pod's prefill slot
    load_s: np.ndarray  # float64 [n], loading lower-tier hits into HBM
    prefill_s: np.ndarray  # float64 [n], computing uncached tokens
    ttft_s: np.ndarray  # float64 [n] = queue_s + load_s + prefill_s
    finish_s: np.ndarray  # float64 [n], absolute time the last output token is produced
    stored_blocks: np.ndarray  # int32 [n], blocks demoted gpu→cpu while serving request i
    predicted_hit_ratio: np.ndarray  # float64 [n], router's predicted prefix match on the chosen pod


@dataclass(frozen=True, eq=False)
class SeriesSamples:
    """Metric samples grouped by series, the shape a query API returns them in.

    Series i is (metrics[i], labels[i]); sample j is (ts[j], values[j]) of series series[j]. Keeping
    labels per series rather than per sample is what makes bulk ingest cheap.
    """

    metrics: list[str]
    labels: list[dict[str, str]]
    series: np.ndarray  # int64 [samples], index into metrics/labels
    ts: np.ndarray  # datetime64[us] [samples], naive UTC
    values: np.ndarray  # float64 [samples]

    @property
    def num_samples(self) -> int:
        """How many samples the record holds."""
        return int(self.values.shape[0])

    @staticmethod
    def concat(batches: list[SeriesSamples]) -> SeriesSamples:
        """One record holding every batch's series and samples, in order."""
        offsets = np.cumsum([0] + [len(b.metrics) for b in batches])
        return SeriesSamples(
            metrics=[m for b in batches for m in b.metrics],
            labels=[d for b in batches for d in b.labels],
            series=np.concatenate(
                [b.series + o for b, o in zip(batches, offsets, strict=False)] or [np.zeros(0, np.int64)]
            ),
            ts=np.concatenate([b.ts for b in batches] or [np.zeros(0, "datetime64[us]")]),
            values=np.concatenate([b.values for b in batches] or [np.zeros(0)]),
        )

    def only(self, metrics: set[str]) -> SeriesSamples:
        """The series whose metric is one of metrics, with their samples."""
        keep = np.array([m in metrics for m in self.metrics], bool)
        index = np.full(len(self.metrics), -1, np.int64)
        index[keep] = np.arange(int(keep.sum()))
        rows = keep[self.series] if len(self.series) else np.zeros(0, bool)
        return SeriesSamples(
            metrics=[m for m, k in zip(self.metrics, keep, strict=True) if k],
            labels=[d for d, k in zip(self.labels, keep, strict=True) if k],
            series=index[self.series[rows]],
            ts=self.ts[rows],
            values=self.values[rows],
        )


@dataclass(frozen=True, eq=False)
class MissRatioCurve:
    """Hit ratios of one LRU cache at each capacity (blocks); equal-length arrays."""

    capacity_blocks: np.ndarray  # int64
    block_hit_ratio: np.ndarray  # float64
    token_hit_ratio: np.ndarray  # float64

    def to_dict(self) -> dict[str, list]:
        """The `kvscope mrc --json` object."""
        return {
            "capacity_blocks": self.capacity_blocks.tolist(),
            "block_hit_ratio": self.block_hit_ratio.tolist(),
            "token_hit_ratio": self.token_hit_ratio.tolist(),
        }


@dataclass(frozen=True)
class SampledCurve:
    """An approximate hit-ratio curve and how it was sampled."""

    curve: MissRatioCurve
    policy: str
    rate: float  # nominal share of sampling units kept; 1.0 means the exact sweep ran instead
    seed: int
    num_requests_sampled: int
    num_trunk_blocks: int  # the trace's shared blocks, kept whole in every sample
    max_abs_error: float | None  # measured at this rate (engine/mrc_sampled.py); None: not measured
    raised_capacities: int = 0  # capacities near the trunk sampled at a higher rate (or replayed exactly)
    windowed_capacities: int = 0  # capacities near the trunk replayed whole over windows of time instead

    @property
    def is_exact(self) -> bool:
        """True when no sampling happened (LRU's one pass, or the exact sweep)."""
        return self.rate >= 1.0

    def label(self) -> str:
        """How to name the curve in a legend, e.g. 's3fifo (sampled 5%, measured ±0.07)'."""
        if self.is_exact:
            return f"{self.policy} (exact)"
        bound = (
            f"measured ±{self.max_abs_error:.2f}" if self.max_abs_error is not None else "error not measured"
        )
        return f"{self.policy} (sampled {self.rate * 100:g}%, {bound})"


@dataclass(frozen=True)
class SqlResult:
    """The rows of one console query, whether the row cap cut them, and how long it took."""

    frame: pd.DataFrame
    is_truncated: bool
    max_rows: int
    elapsed_s: float
