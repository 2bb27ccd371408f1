"""What the Overview page shows, as plain functions over the store (no Streamlit here).

Every function takes the one Selection (pods, range, window) so no chart can miss the filter.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

import pandas as pd

from dashboard.core.selection import Selection, TimeRange
from dashboard.services import applicability, headline, range_totals, windows
from dashboard.services.headline import Kpis
from dashboard.store.db import Store
from dashboard.store.queries import run_query

TTFT_QUANTILES = (0.5, 0.9, 0.99)
# The frames the page draws, by function name (ui/cached.frame fetches each one by name).
FRAMES = (
    "annotations",
    "hit_rate",
    "ttft_quantiles",
    "ttft_distribution",
    "kv_usage",
    "capacity",
    "offload_traffic",
    "tier_occupancy",
    "routing",
)

__all__ = ["Kpis", "Selection", "TimeRange"]  # re-exported: the types pages pass back in


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


def with_window(store: Store, sel: Selection) -> Selection:
    """sel with its rate window worked out once, so the page's queries do not each ask again."""
    return replace(sel, window_s=effective_window_s(store, sel.time_range))


def window_params(store: Store, sel: Selection) -> dict:
    """start, end, the effective rate window and the pods: the parameters of every windowed query."""
    tr = sel.time_range
    step = sel.window_s if sel.window_s is not None else effective_window_s(store, tr)
    return {"start": tr.start, "end": tr.end, "step": step, "pods": sel.pod_list}


def hit_rate(store: Store, sel: Selection) -> pd.DataFrame:
    """Hit rate per window (ts, pod, tier, hit_rate); row '*' totals the selected pods."""
    return run_query(store, "hit_rate", **window_params(store, sel))


def ttft_quantiles(store: Store, sel: Selection) -> pd.DataFrame:
    """TTFT p50/p90/p99 per window over the selected pods (ts, q, ttft_s, num_requests)."""
    return run_query(store, "ttft_quantiles", q=list(TTFT_QUANTILES), **window_params(store, sel))


def ttft_distribution(store: Store, sel: Selection) -> pd.DataFrame:
    """Requests per TTFT bucket over the whole range (lower_s, upper_s, num_requests)."""
    return headline.ttft_distribution(range_totals.whole(store, sel))


def kv_usage(store: Store, sel: Selection) -> pd.DataFrame:
    """GPU KV share held by running requests per pod (ts, pod, usage_ratio)."""
    return run_query(store, "overview_kv_usage", **window_params(store, sel))


def capacity(store: Store, sel: Selection) -> pd.DataFrame:
    """Configured GPU and CPU-tier KV capacity per selected pod."""
    return run_query(store, "overview_capacity", pods=sel.pod_list)


def offload_traffic(store: Store, sel: Selection) -> pd.DataFrame:
    """Offload store/load bytes per second per pod (ts, pod, direction, bytes_per_s)."""
    return run_query(store, "overview_offload_traffic", **window_params(store, sel))


def tier_occupancy(store: Store, sel: Selection) -> pd.DataFrame:
    """KV bytes resident per offload tier and pod, where LMCache reports them (ts, pod, tier, resident_bytes)."""
    return run_query(store, "overview_tier_occupancy", **window_params(store, sel))


def routing(store: Store, sel: Selection) -> pd.DataFrame:
    """Requests the EPP sent to each endpoint per window (ts, endpoint, num_requests, share).

    Cluster-wide on purpose: the router's split over every endpoint ignores the pod filter.
    """
    params = window_params(store, sel)
    params.pop("pods")
    return run_query(store, "overview_routing", **params)


def annotations(store: Store, sel: Selection) -> pd.DataFrame:
    """Events inside the range (ts, kind, text); events are cluster-wide."""
    tr = sel.time_range
    return run_query(store, "annotations", start=tr.start, end=tr.end)


def kpis(store: Store, sel: Selection) -> Kpis:
    """Hit rates and TTFT over the whole range for the selected pods: one window (start, end]."""
    return headline.kpis(range_totals.whole(store, sel))


def missing_metrics(store: Store, keys: tuple[str, ...]) -> dict[str, str]:
    """For each catalog key whose panel does not apply to this stack: the 'needs …' text to show instead."""
    return applicability.missing(store, keys)
