"""What the Overview page shows, as plain functions over the store (no Streamlit here)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

import pandas as pd

from dashboard.services import applicability, windows
from dashboard.store.db import Store
from dashboard.store.queries import run_query

SCRAPE_INTERVAL_S = 15.0
TARGET_POINTS = 120
TTFT_QUANTILES = (0.5, 0.9, 0.99)


@dataclass(frozen=True)
class TimeRange:
    """A closed time range (naive UTC) and the window step its charts use."""

    start: datetime
    end: datetime
    step_s: float

    @property
    def length_s(self) -> float:
        """Seconds from start to end."""
        return (self.end - self.start).total_seconds()


@dataclass(frozen=True)
class Bounds:
    """What the store holds: first and last sample time and counts."""

    first_ts: datetime | None
    last_ts: datetime | None
    num_samples: int
    num_series: int

    @property
    def is_empty(self) -> bool:
        """True when there are no samples at all."""
        return self.num_samples == 0


@dataclass(frozen=True)
class Kpis:
    """Headline numbers over the whole selected range."""

    gpu_hit_rate: float | None
    offload_hit_rate: float | None
    ttft_p50_s: float | None
    ttft_p99_s: float | None
    num_requests: float | None


def choose_step(length_s: float, scrape_interval_s: float = SCRAPE_INTERVAL_S) -> float:
    """A window for ~TARGET_POINTS points: ≥ 4 scrapes, a whole number of scrape intervals."""
    raw = max(length_s / TARGET_POINTS, 4 * scrape_interval_s)
    return math.ceil(raw / scrape_interval_s) * scrape_interval_s


def time_range(end: datetime, length_s: float) -> TimeRange:
    """The range of length_s seconds ending at end, with its chart step (start on a step multiple)."""
    step = choose_step(length_s)
    start = end - timedelta(seconds=math.floor(length_s / step) * step)
    return TimeRange(start=start, end=end, step_s=step)


def bounds(store: Store) -> Bounds:
    """First/last sample time and counts."""
    row = run_query(store, "time_bounds").iloc[0]
    first, last = row.first_ts, row.last_ts
    return Bounds(
        first_ts=None if pd.isna(first) else pd.Timestamp(first).to_pydatetime(),
        last_ts=None if pd.isna(last) else pd.Timestamp(last).to_pydatetime(),
        num_samples=int(row.num_samples),
        num_series=int(row.num_series),
    )


def pods(store: Store) -> list[str]:
    """Engine pods with vLLM series, sorted."""
    return run_query(store, "pods")["pod"].tolist()


def effective_window_s(store: Store, tr: TimeRange) -> float:
    """The rate window the charts of tr use: its step, raised to 4 × the observed scrape interval."""
    return windows.effective_window_s(store, tr.step_s, tr.start, tr.end)


def window_caption(store: Store, tr: TimeRange) -> str:
    """The caption line naming the window a chart's rates use."""
    return windows.window_caption(effective_window_s(store, tr))


def hit_rate(store: Store, tr: TimeRange, selected_pods: list[str] | None = None) -> pd.DataFrame:
    """Hit rate per window (ts, pod, tier, hit_rate); the cluster row '*' covers every pod."""
    frame = run_query(store, "hit_rate", start=tr.start, end=tr.end, step=effective_window_s(store, tr))
    return _keep_pods(frame, "pod", selected_pods, keep=("*",))


def ttft_quantiles(store: Store, tr: TimeRange) -> pd.DataFrame:
    """TTFT p50/p90/p99 per window (ts, q, ttft_s)."""
    return run_query(
        store,
        "ttft_quantiles",
        start=tr.start,
        end=tr.end,
        step=effective_window_s(store, tr),
        q=list(TTFT_QUANTILES),
    )


def ttft_distribution(store: Store, tr: TimeRange) -> pd.DataFrame:
    """Requests per TTFT bucket over the whole range (lower_s, upper_s, num_requests)."""
    return run_query(store, "overview_ttft_distribution", start=tr.start, end=tr.end)


def kv_usage(store: Store, tr: TimeRange, selected_pods: list[str] | None = None) -> pd.DataFrame:
    """GPU KV share held by running requests per pod (ts, pod, usage_ratio)."""
    frame = run_query(store, "overview_kv_usage", start=tr.start, end=tr.end, step=tr.step_s)
    return _keep_pods(frame, "pod", selected_pods)


def capacity(store: Store) -> pd.DataFrame:
    """Configured GPU and CPU-tier KV capacity per pod."""
    return run_query(store, "overview_capacity")


def offload_traffic(store: Store, tr: TimeRange, selected_pods: list[str] | None = None) -> pd.DataFrame:
    """Offload store/load bytes per second per pod (ts, pod, direction, bytes_per_s)."""
    frame = run_query(
        store, "overview_offload_traffic", start=tr.start, end=tr.end, step=effective_window_s(store, tr)
    )
    return _keep_pods(frame, "pod", selected_pods)


def tier_occupancy(store: Store, tr: TimeRange, selected_pods: list[str] | None = None) -> pd.DataFrame:
    """KV bytes resident per offload tier and pod, where LMCache reports them (ts, pod, tier, resident_bytes)."""
    frame = run_query(store, "overview_tier_occupancy", start=tr.start, end=tr.end, step=tr.step_s)
    return _keep_pods(frame, "pod", selected_pods)


def routing(store: Store, tr: TimeRange) -> pd.DataFrame:
    """Requests the EPP sent to each endpoint per window (ts, endpoint, num_requests, share)."""
    return run_query(
        store, "overview_routing", start=tr.start, end=tr.end, step=effective_window_s(store, tr)
    )


def annotations(store: Store, tr: TimeRange) -> pd.DataFrame:
    """Events inside the range (ts, kind, text)."""
    return run_query(store, "annotations", start=tr.start, end=tr.end)


def kpis(store: Store, tr: TimeRange) -> Kpis:
    """Hit rates and TTFT over the whole range: one window (start, end] of the same queries."""
    whole = {"start": tr.end, "end": tr.end, "step": max(tr.length_s, 1.0)}
    rates = run_query(store, "hit_rate", **whole)
    cluster = rates[rates.pod == "*"].set_index("tier")["hit_rate"]
    ttft = run_query(store, "ttft_quantiles", q=[0.5, 0.99], **whole).set_index("q")
    return Kpis(
        gpu_hit_rate=_maybe(cluster.get("gpu")),
        offload_hit_rate=_maybe(cluster.get("offload")),
        ttft_p50_s=_maybe(ttft["ttft_s"].get(0.5)),
        ttft_p99_s=_maybe(ttft["ttft_s"].get(0.99)),
        num_requests=_maybe(ttft["num_requests"].get(0.5)),
    )


def missing_metrics(store: Store, keys: tuple[str, ...]) -> dict[str, str]:
    """For each catalog key whose panel does not apply to this stack: the 'needs …' text to show instead."""
    return applicability.missing(store, keys)


def _keep_pods(
    frame: pd.DataFrame, column: str, selected: list[str] | None, keep: tuple = ()
) -> pd.DataFrame:
    if not selected:
        return frame
    return frame[frame[column].isin([*selected, *keep])].reset_index(drop=True)


def _maybe(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)
