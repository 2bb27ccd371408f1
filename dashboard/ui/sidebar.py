"""The sidebar every page shares: data source, time range, pod filter, auto-refresh."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

import streamlit as st

from dashboard.services import overview
from dashboard.ui import cached

PRESETS_S = {"last 15 min": 900, "last 1 h": 3600, "last 6 h": 6 * 3600, "last 24 h": 86400}
REFRESH_S = {"off": None, "5 s": 5, "15 s": 15, "30 s": 30}


@dataclass(frozen=True)
class Selection:
    """What the sidebar selected, for the page body."""

    preset: str
    custom: tuple[datetime, datetime] | None
    pods: tuple[str, ...]
    refresh_s: int | None

    def time_range(self, bounds: overview.Bounds) -> overview.TimeRange:
        """The chosen range, relative to the newest sample (so live data keeps moving)."""
        assert bounds.last_ts is not None and bounds.first_ts is not None
        if self.custom is not None:
            start, end = self.custom
            return overview.time_range(end, max((end - start).total_seconds(), 60.0))
        if self.preset == "all data":
            length = max((bounds.last_ts - bounds.first_ts).total_seconds(), 60.0)
        else:
            length = float(PRESETS_S[self.preset])
        return overview.time_range(bounds.last_ts, length)


def render_source(path: str, bounds: overview.Bounds | None) -> None:
    """Where the data comes from: the store, its span, the live collector's state."""
    sb = st.sidebar
    sb.caption(f"Store: `{path}`")
    if bounds is not None:
        sb.caption(f"{bounds.num_series:,} series · {bounds.num_samples:,} samples")
    if bounds is not None and bounds.last_ts is not None:
        sb.caption(f"Data: {bounds.first_ts:%Y-%m-%d %H:%M} → {bounds.last_ts:%Y-%m-%d %H:%M} UTC")
    _collector_status(sb)


def render(path: str, bounds: overview.Bounds) -> Selection:
    """Draw the shared controls and return the selection."""
    sb = st.sidebar
    preset = sb.selectbox("Time range", [*PRESETS_S, "all data", "custom"], index=4, key="sidebar_range")
    custom = _custom_range(bounds) if preset == "custom" else None
    all_pods = cached.pods(path)
    chosen = sb.multiselect("Pods", all_pods, default=[], key="sidebar_pods", placeholder="all pods")
    refresh = sb.selectbox("Auto-refresh", list(REFRESH_S), index=0, key="sidebar_refresh")
    return Selection(preset=preset, custom=custom, pods=tuple(chosen), refresh_s=REFRESH_S[refresh])


def _collector_status(sb) -> None:
    """Last pull, lag and last error of the in-app collector (never any secret)."""
    state = cached.collector_state()
    if state is None:
        sb.caption("Collector: off (set KVSCOPE_PROMETHEUS_URL or KVSCOPE_SCRAPE to pull live)")
        return
    now = datetime.now(tz=UTC).replace(tzinfo=None)
    lag = state.lag_s(now)
    pulled = "never" if state.last_pull_at is None else f"{state.last_pull_at:%H:%M:%S} UTC"
    sb.caption(
        f"Collector: last pull {pulled} · lag {'—' if lag is None else f'{lag:.0f} s'} · "
        f"{state.num_stored:,} samples stored"
    )
    if state.last_error:
        sb.error(f"Collector: {state.last_error} — showing stored data")


def _custom_range(bounds: overview.Bounds) -> tuple[datetime, datetime]:
    last = bounds.last_ts or datetime(1970, 1, 1)
    first = bounds.first_ts or last
    day = st.sidebar.date_input("Day (UTC)", value=last.date(), key="sidebar_day")
    start_t = st.sidebar.time_input(
        "From (UTC)", value=first.time() if first.date() == day else time(0), key="sidebar_from"
    )
    end_t = st.sidebar.time_input("To (UTC)", value=last.time(), key="sidebar_to")
    start, end = datetime.combine(day, start_t), datetime.combine(day, end_t)
    if end <= start:
        st.sidebar.warning("'To' must be after 'From'; showing one hour.")
        start = end - timedelta(hours=1)
    return start, end
