"""The sidebar every page shares: data source, time range, pod filter, auto-refresh."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time

import streamlit as st

from dashboard.core.selection import RangeError, all_data_range, custom_range, time_range
from dashboard.services import overview
from dashboard.ui import cached

PRESETS_S = {"last 15 min": 900, "last 1 h": 3600, "last 6 h": 6 * 3600, "last 24 h": 86400}
REFRESH_S = {"off": None, "5 s": 5, "15 s": 15, "30 s": 30}
LIVE_DEFAULT_REFRESH = "15 s"
STATUS_REFRESH_S = 5  # the collector line refreshes itself this often, auto-refresh or not


@dataclass(frozen=True)
class Controls:
    """What the sidebar's widgets say; selection() turns it into the one typed Selection."""

    preset: str
    custom: tuple[datetime, datetime] | None
    pods: tuple[str, ...]
    refresh_s: int | None

    def selection(self, bounds: overview.Bounds) -> overview.Selection:
        """The Selection for these controls, relative to the newest sample (live data moves)."""
        assert bounds.last_ts is not None and bounds.first_ts is not None
        if self.custom is not None:
            tr = custom_range(*self.custom)
        elif self.preset == "all data":
            tr = all_data_range(bounds.first_ts, bounds.last_ts)
        else:
            tr = time_range(bounds.last_ts, float(PRESETS_S[self.preset]))
        return overview.Selection(time_range=tr, pods=self.pods)


def render_source(path: str, bounds: overview.Bounds | None) -> None:
    """Where the data comes from: the store, its span, the live collector's state."""
    sb = st.sidebar
    sb.caption(f"Parquet export (read-only): `{path}`" if cached.reads_export() else f"Store: `{path}`")
    if bounds is not None:
        sb.caption(f"{bounds.num_series:,} series · {bounds.num_samples:,} samples")
    if bounds is not None and bounds.last_ts is not None:
        sb.caption(f"Data: {bounds.first_ts:%Y-%m-%d %H:%M} → {bounds.last_ts:%Y-%m-%d %H:%M} UTC")


def render(path: str, bounds: overview.Bounds) -> Controls | str:
    """Draw the shared controls; the Controls, or the message saying what to change."""
    sb = st.sidebar
    preset = sb.selectbox(
        "Time range", [*PRESETS_S, "all data", "custom"], index=4, key="sidebar_range", bind="query-params"
    )
    custom = _custom_range(bounds) if preset == "custom" else None
    all_pods = cached.pods(path)
    chosen = sb.multiselect(
        "Pods", all_pods, default=[], key="sidebar_pods", placeholder="all pods", bind="query-params"
    )
    options = list(REFRESH_S)
    default = options.index(LIVE_DEFAULT_REFRESH) if cached.is_live() else 0
    refresh = sb.selectbox("Auto-refresh", options, index=default, key="sidebar_refresh", bind="query-params")
    collector_status(REFRESH_S[refresh])
    if isinstance(custom, str):
        return custom
    return Controls(preset=preset, custom=custom, pods=tuple(chosen), refresh_s=REFRESH_S[refresh])


def collector_status(refresh_s: int | None) -> None:
    """Last pull, lag and last error of the in-app collector, refreshed with the page."""
    with st.sidebar:
        _collector_line(refresh_s)


def collector_text(now: datetime) -> tuple[str, str | None]:
    """The collector line and its last error (never any secret)."""
    state = cached.collector_state()
    if state is None:
        return "Collector: off (set KVSCOPE_PROMETHEUS_URL or KVSCOPE_SCRAPE to pull live)", None
    lag = state.lag_s(now)
    pulled = "never" if state.last_pull_at is None else f"{state.last_pull_at:%H:%M:%S} UTC"
    line = (
        f"Collector: last pull {pulled} · lag {'—' if lag is None else f'{lag:.0f} s'} · "
        f"{state.num_stored:,} samples stored"
    )
    if not state.last_error:
        return line, None
    retry = f" · retrying in {state.retry_in_s:.0f} s" if state.retry_in_s else ""
    return line, f"Collector: {state.last_error}{retry} — showing stored data"


def _collector_line(refresh_s: int | None) -> None:
    # NOTE: with auto-refresh off the charts stay put, but the collector's line still refreshes, so
    # an error of the collector thread shows without a reload.
    every_s = min(refresh_s or STATUS_REFRESH_S, STATUS_REFRESH_S)

    @st.fragment(run_every=every_s if cached.is_live() else None)
    def line() -> None:
        text, error = collector_text(datetime.now(tz=UTC).replace(tzinfo=None))
        st.caption(text)
        if error:
            st.error(error)

    line()


def _custom_range(bounds: overview.Bounds) -> tuple[datetime, datetime] | str:
    """From/To over any number of days; a reversed range is refused with what to change."""
    last = bounds.last_ts or datetime(1970, 1, 1)
    first = bounds.first_ts or last
    sb = st.sidebar
    from_day = sb.date_input(
        "From day (UTC)", value=first.date(), key="sidebar_from_day", bind="query-params"
    )
    from_t = sb.time_input(
        "From time (UTC)", value=first.time().replace(microsecond=0), key="sidebar_from", bind="query-params"
    )
    to_day = sb.date_input("To day (UTC)", value=last.date(), key="sidebar_to_day", bind="query-params")
    to_t = sb.time_input(
        "To time (UTC)", value=last.time().replace(microsecond=0), key="sidebar_to", bind="query-params"
    )
    start = datetime.combine(from_day, from_t or time(0))
    end = datetime.combine(to_day, to_t or time(0))
    try:
        custom_range(start, end)
    except RangeError as exc:
        sb.error(str(exc))
        return str(exc)
    return start, end
