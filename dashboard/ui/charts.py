"""Plotly figure builders: every chart titled with what it measures and its unit."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dashboard.ui.theme import QUANTILE_COLORS, TIER_COLORS, pod_color, register_template

TIER_LABELS = {
    "gpu": "HBM (GPU prefix cache)",
    "offload": "offload tier (KV connector)",
    "lmcache": "LMCache (its own retrieve counters)",
}
OCCUPANCY_COLORS = {"cpu": "#0891b2", "disk": "#78716c"}


def _figure(title: str, y_title: str, height: int = 360) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(template=register_template(), title=title, yaxis_title=y_title, height=height)
    return fig


def add_annotations(fig: go.Figure, notes: pd.DataFrame) -> go.Figure:
    """Dashed vertical lines with the event text for each annotation row (ts, kind, text)."""
    for row in notes.itertuples():
        fig.add_vline(x=row.ts, line={"dash": "dash", "color": "#6b7280", "width": 1})
        fig.add_annotation(
            x=row.ts,
            y=1,
            yref="paper",
            text=row.kind,
            hovertext=row.text,
            showarrow=False,
            xanchor="left",
            yanchor="top",
            font={"size": 11, "color": "#374151"},
            bgcolor="rgba(255,255,255,0.8)",
        )
    return fig


def hit_rate_chart(rates: pd.DataFrame, tier: str, all_pods: list[str]) -> go.Figure:
    """Token-weighted hit rate of one tier over time: the cluster line bold, pods thin."""
    fig = _figure(f"Prefix-cache hit rate, {TIER_LABELS.get(tier, tier)} — token-weighted, %", "hit rate (%)")
    sub = rates[rates.tier == tier]
    for pod, rows in sub.groupby("pod", sort=True):
        is_cluster = pod == "*"
        fig.add_scatter(
            x=rows.ts,
            y=rows.hit_rate * 100,
            mode="lines",
            name="cluster" if is_cluster else pod,
            line={"width": 3 if is_cluster else 1.2, "color": pod_color(pod, all_pods)},
            opacity=1.0 if is_cluster else 0.65,
            hovertemplate="%{y:.1f}%<extra>" + ("cluster" if is_cluster else pod) + "</extra>",
        )
    fig.update_yaxes(range=[0, 100])
    return fig


def ttft_quantile_chart(quantiles: pd.DataFrame) -> go.Figure:
    """TTFT p50/p90/p99 per window, seconds on a log axis."""
    fig = _figure("Time to first token — p50 / p90 / p99 per window, s", "TTFT (s)")
    for q, rows in quantiles.groupby("q", sort=True):
        label = f"p{q * 100:g}"
        fig.add_scatter(
            x=rows.ts,
            y=rows.ttft_s,
            mode="lines",
            name=label,
            line={"color": QUANTILE_COLORS.get(round(q, 2), "#6b7280"), "width": 2},
            hovertemplate="%{y:.3f} s<extra>" + label + "</extra>",
        )
    fig.update_yaxes(type="log")
    return fig


def ttft_distribution_chart(dist: pd.DataFrame) -> go.Figure:
    """Requests per TTFT histogram bucket over the range (vLLM's bucket bounds)."""
    fig = _figure("TTFT distribution over the selected range — requests per bucket", "requests")
    finite = dist[dist.upper_s != float("inf")]
    labels = [f"{lo:g}–{hi:g} s" for lo, hi in zip(finite.lower_s, finite.upper_s, strict=True)]
    fig.add_bar(
        x=labels,
        y=finite.num_requests,
        marker_color="#2563eb",
        hovertemplate="%{x}: %{y:,.0f} requests<extra></extra>",
    )
    fig.update_layout(hovermode="closest", xaxis_title="TTFT bucket")
    return fig


def kv_usage_chart(usage: pd.DataFrame, all_pods: list[str]) -> go.Figure:
    """GPU KV blocks held by running requests, % of capacity (the working set, not residency)."""
    fig = _figure("HBM KV held by running requests, % (kv_cache_usage_perc)", "in use (%)")
    for pod, rows in usage.groupby("pod", sort=True):
        fig.add_scatter(
            x=rows.ts,
            y=rows.usage_ratio * 100,
            mode="lines",
            name=pod,
            line={"width": 1.3, "color": pod_color(pod, all_pods)},
            hovertemplate="%{y:.1f}%<extra>" + pod + "</extra>",
        )
    fig.update_yaxes(range=[0, 100])
    return fig


def capacity_chart(cap: pd.DataFrame) -> go.Figure:
    """Configured KV capacity per pod and tier, millions of tokens."""
    fig = _figure("Configured KV capacity per pod — M tokens", "capacity (M tokens)", height=300)
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
    return fig


def offload_traffic_chart(traffic: pd.DataFrame) -> go.Figure:
    """Cluster offload traffic: GPU→tier stores and tier→GPU loads, MB/s."""
    fig = _figure("Offload traffic, cluster total — MB/s", "MB/s")
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


def tier_occupancy_chart(occupancy: pd.DataFrame) -> go.Figure:
    """KV bytes resident in the offload tiers, cluster total per tier, GB, stacked."""
    fig = _figure("Offload tier occupancy (LMCache), cluster total — GB resident", "GB")
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
    totals = frame.groupby(["ts", by], as_index=False)[value].sum()
    for key, rows in totals.groupby(by, sort=True):
        name = names.get(key, key)
        fig.add_scatter(
            x=rows.ts,
            y=rows[value] / scale,
            mode="lines",
            name=name,
            stackgroup="stack" if stack else None,
            line={"width": width, "color": colors.get(key, "#6b7280")},
            hovertemplate=f"{hover}<extra>{name}</extra>",
        )
    return fig


def routing_chart(routes: pd.DataFrame, all_pods: list[str]) -> go.Figure:
    """Share of scheduled requests per endpoint over time, stacked to 100%."""
    fig = _figure("Requests routed to each pod by the EPP — share per window, %", "share (%)")
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
    fig = _figure("Requests routed per pod over the range", "requests", height=300)
    fig.add_bar(
        x=totals.endpoint,
        y=totals.num_requests,
        marker_color=[pod_color(e, all_pods) for e in totals.endpoint],
        hovertemplate="%{x}: %{y:,.0f} requests<extra></extra>",
    )
    fig.update_layout(hovermode="closest")
    return fig
