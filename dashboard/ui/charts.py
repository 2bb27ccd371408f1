"""Plotly figure builders: every chart titled with what it measures and its unit."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dashboard.core.units import bucket_label, format_duration
from dashboard.ui.log_axes import log_seconds_axis
from dashboard.ui.theme import (
    OTHERS_COLOR,
    QUANTILE_COLORS,
    TIER_COLORS,
    pod_color,
    register_template,
    titled,
)

TIER_LABELS = {
    "gpu": "HBM",
    "offload": "offload tier",
    "lmcache": "LMCache",
}
OCCUPANCY_COLORS = {"cpu": "#0891b2", "disk": "#78716c"}
LEGEND_PODS = 10  # more pods than this: the busiest keep a legend entry, the rest are "others"


def with_gaps(frame: pd.DataFrame, by: str, value: str) -> pd.DataFrame:
    """frame with a NaN row for every window a `by` group has no row in, so lines break there.

    The windows are the frame's own grid (its smallest ts spacing), so a window where no pod had
    traffic breaks every line too.
    """
    if frame.empty:
        return frame
    ts = pd.DatetimeIndex(sorted(frame.ts.unique()))
    if len(ts) > 1:
        step = pd.Series(ts).diff().min()
        ts = pd.date_range(ts[0], ts[-1], freq=step)
    full = pd.MultiIndex.from_product([ts, sorted(frame[by].unique())], names=["ts", by])
    return frame.set_index(["ts", by])[[value]].reindex(full).reset_index()


def legend_pods(frame: pd.DataFrame, column: str, weight: str, limit: int = LEGEND_PODS) -> set[str]:
    """The pods (by total weight) that keep their own legend entry when there are many."""
    totals = frame.groupby(column)[weight].sum().sort_values(ascending=False)
    return set(totals.index[:limit])


def themed_figure(title: str, y_title: str, height: int = 360, x_title: str = "time (UTC)") -> go.Figure:
    """A themed figure; a title 'main — detail' shows detail as the subtitle (half-width charts)."""
    fig = go.Figure()
    fig.update_layout(
        template=register_template(),
        title=titled(title),
        yaxis_title=y_title,
        xaxis_title=x_title,
        height=height,
    )
    return fig


def _pod_line(fig: go.Figure, rows: pd.DataFrame, pod: str, y, hover: str, color: str, shown: bool, **kw):
    """One pod's thin line; pods past the legend limit share one grey "others" entry."""
    fig.add_scatter(
        x=rows.ts,
        y=y,
        mode="lines",
        name=pod if shown else "others",
        legendgroup=None if shown else "others",
        showlegend=shown or not any(t.legendgroup == "others" for t in fig.data),
        connectgaps=False,
        line={"width": kw.pop("width", 1.2), "color": color if shown else OTHERS_COLOR},
        hovertemplate=hover + "<extra>" + pod + "</extra>",
        **kw,
    )


def hit_rate_chart(rates: pd.DataFrame, tier: str, all_pods: list[str], scope: str = "cluster") -> go.Figure:
    """Token-weighted hit rate of one tier over time: the selection's total bold, pods thin."""
    fig = themed_figure(
        f"Prefix-cache hit rate, {TIER_LABELS.get(tier, tier)} — {scope}, token-weighted, %", "hit rate (%)"
    )
    sub = rates[rates.tier == tier]
    shown = legend_pods(sub[sub.pod != "*"], "pod", "query_tokens") if len(sub) else set()
    total = "cluster" if scope == "cluster" else "selected pods"
    gapped = with_gaps(sub, "pod", "hit_rate")
    for pod, rows in gapped.groupby("pod", sort=True):
        if pod == "*":
            continue
        _pod_line(
            fig,
            rows,
            pod,
            rows.hit_rate * 100,
            "%{y:.1f}%",
            pod_color(pod, all_pods),
            pod in shown,
            opacity=0.65,
        )
    for _, rows in gapped[gapped.pod == "*"].groupby("pod"):
        fig.add_scatter(
            x=rows.ts,
            y=rows.hit_rate * 100,
            mode="lines",
            name=total,
            connectgaps=False,
            line={"width": 3, "color": pod_color("*", all_pods)},
            hovertemplate="%{y:.1f}%<extra>" + total + "</extra>",
        )
    fig.update_yaxes(range=[0, 100])
    return fig


def ttft_quantile_chart(quantiles: pd.DataFrame, scope: str = "cluster") -> go.Figure:
    """TTFT p50/p90/p99 per window on a log axis; windows without requests are gaps."""
    fig = themed_figure(f"Time to first token, {scope} — p50 / p90 / p99 per window", "TTFT (log scale)")
    for q, rows in quantiles.groupby("q", sort=True):
        label = f"p{q * 100:g}"
        fig.add_scatter(
            x=rows.ts,
            y=rows.ttft_s,
            mode="lines",
            name=label,
            connectgaps=False,
            customdata=[format_duration(v) for v in rows.ttft_s],
            line={"color": QUANTILE_COLORS.get(round(q, 2), "#6b7280"), "width": 2},
            hovertemplate="%{customdata}<extra>" + label + "</extra>",
        )
    return log_seconds_axis(fig, quantiles.ttft_s.astype(float))


def ttft_distribution_chart(dist: pd.DataFrame, scope: str = "cluster") -> go.Figure:
    """Requests per TTFT histogram bucket over the range (vLLM's bucket bounds), labelled whole."""
    fig = themed_figure(
        f"TTFT distribution, {scope} — requests per bucket over the selected range",
        "requests",
        height=400,
        x_title="TTFT bucket (vLLM histogram bounds)",
    )
    finite = dist[dist.upper_s != float("inf")]
    labels = [bucket_label(lo, hi) for lo, hi in zip(finite.lower_s, finite.upper_s, strict=True)]
    fig.add_bar(
        x=labels,
        y=finite.num_requests,
        marker_color="#2563eb",
        hovertemplate="%{x}: %{y:,.0f} requests<extra></extra>",
    )
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(tickangle=-90, automargin=True, title_standoff=12)  # upright labels collide
    return fig


def kv_usage_chart(usage: pd.DataFrame, all_pods: list[str]) -> go.Figure:
    """GPU KV blocks held by running requests, % of capacity (the working set, not residency)."""
    fig = themed_figure("HBM KV held by running requests — per pod, % (kv_cache_usage_perc)", "in use (%)")
    shown = legend_pods(usage, "pod", "usage_ratio") if len(usage) else set()
    for pod, rows in with_gaps(usage, "pod", "usage_ratio").groupby("pod", sort=True):
        _pod_line(
            fig,
            rows,
            pod,
            rows.usage_ratio * 100,
            "%{y:.1f}%",
            pod_color(pod, all_pods),
            pod in shown,
            width=1.3,
        )
    fig.update_yaxes(range=[0, 100])
    return fig


def capacity_chart(cap: pd.DataFrame) -> go.Figure:
    """Configured KV capacity per pod and tier, millions of tokens."""
    # NOTE: a short y title: the upright pod names take the height a longer one would need, which
    # then ran up over the subtitle
    fig = themed_figure("Configured KV capacity per pod — M tokens", "M tokens", x_title="pod")
    fig.add_bar(
        x=cap.pod,
        y=cap.gpu_capacity_tokens / 1e6,
        name="HBM",
        marker_color=TIER_COLORS["gpu"],
        hovertemplate="%{y:.2f} M tokens<extra>HBM</extra>",
    )
    if cap.cpu_capacity_tokens.notna().any():
        fig.add_bar(
            x=cap.pod,
            y=cap.cpu_capacity_tokens / 1e6,
            name="CPU tier",
            marker_color=TIER_COLORS["cpu"],
            hovertemplate="%{y:.2f} M tokens<extra>CPU tier</extra>",
        )
    fig.update_layout(barmode="group", hovermode="closest")
    fig.update_xaxes(tickangle=-90, automargin=True)  # pod names upright collide past a few pods
    return fig


def offload_traffic_chart(traffic: pd.DataFrame, scope: str = "cluster") -> go.Figure:
    """Offload traffic of the selected pods: GPU→tier stores and tier→GPU loads, MB/s."""
    fig = themed_figure(f"Offload traffic, {scope} total — MB/s", "MB/s")
    return _cluster_lines(
        fig,
        traffic,
        "direction",
        "bytes_per_s",
        1e6,
        "%{y:,.1f} MB/s",
        {"store": "store GPU→CPU", "load": "load CPU→GPU"},
        {"store": "#d97706", "load": "#7c3aed"},
        width=2,
    )


def tier_occupancy_chart(occupancy: pd.DataFrame, scope: str = "cluster") -> go.Figure:
    """KV bytes resident in the offload tiers, the selected pods' total per tier, GB, stacked."""
    fig = themed_figure(f"Offload tier occupancy, {scope} total — LMCache, GB resident", "GB")
    return _cluster_lines(
        fig,
        occupancy,
        "tier",
        "resident_bytes",
        1e9,
        "%{y:,.2f} GB",
        {"cpu": "CPU DRAM", "disk": "local disk"},
        OCCUPANCY_COLORS,
        width=1,
        stack=True,
    )


def _cluster_lines(
    fig: go.Figure,
    frame: pd.DataFrame,
    by: str,
    value: str,
    scale: float,
    hover: str,
    names: dict[str, str],
    colors: dict[str, str],
    width: int,
    stack: bool = False,
) -> go.Figure:
    """One line per `by` value of frame's per-pod `value` summed over pods, divided by scale."""
    totals = with_gaps(frame.groupby(["ts", by], as_index=False)[value].sum(), by, value)
    for key, rows in totals.groupby(by, sort=True):
        name = names.get(key, key)
        fig.add_scatter(
            x=rows.ts,
            y=rows[value] / scale,
            mode="lines",
            name=name,
            stackgroup="stack" if stack else None,
            connectgaps=False,
            line={"width": width, "color": colors.get(key, "#6b7280")},
            hovertemplate=f"{hover}<extra>{name}</extra>",
        )
    return fig


def routing_chart(routes: pd.DataFrame, all_pods: list[str]) -> go.Figure:
    """Share of scheduled requests per endpoint over time, stacked to 100%."""
    fig = themed_figure(
        "EPP routing share per pod, cluster-wide — ignores the pod filter, % per window", "share (%)"
    )
    for endpoint, rows in routes.groupby("endpoint", sort=True):
        fig.add_scatter(
            x=rows.ts,
            y=rows.share * 100,
            mode="lines",
            name=endpoint,
            stackgroup="share",
            line={"width": 0.5, "color": pod_color(endpoint, all_pods)},
            hovertemplate="%{y:.1f}%<extra>" + endpoint + "</extra>",
        )
    fig.update_yaxes(range=[0, 100])
    return fig


def routing_total_chart(routes: pd.DataFrame, all_pods: list[str]) -> go.Figure:
    """Requests per endpoint summed over the range."""
    totals = routes.groupby("endpoint", as_index=False)["num_requests"].sum()
    fig = themed_figure(
        "Requests routed per pod, cluster-wide — over the range", "requests", height=300, x_title="pod"
    )
    fig.add_bar(
        x=totals.endpoint,
        y=totals.num_requests,
        marker_color=[pod_color(e, all_pods) for e in totals.endpoint],
        hovertemplate="%{x}: %{y:,.0f} requests<extra></extra>",
    )
    fig.update_layout(hovermode="closest")
    fig.update_xaxes(tickangle=-90, automargin=True)
    return fig
