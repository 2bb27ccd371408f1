"""Figures of a What-if comparison, one trace per scenario: hits by tier, TTFT by outcome, load per pod, hits over time."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from dashboard.core.types import TIER_NAMES
from dashboard.services.compare import Comparison
from dashboard.ui.log_axes import log_seconds_axis
from dashboard.ui.theme import PALETTE, TIER_COLORS, register_template, titled

TIER_LABELS = {"gpu": "HBM", "cpu": "CPU DRAM", "disk": "disk"}
OUTCOME_ORDER = ("miss", "partial/gpu", "partial/cpu", "partial/disk", "full/gpu", "full/cpu", "full/disk")
OUTCOME_LABELS = {
    "miss": "miss",
    "partial/gpu": "partial hit<br>HBM",
    "partial/cpu": "partial hit<br>via CPU",
    "partial/disk": "partial hit<br>via disk",
    "full/gpu": "full hit<br>HBM",
    "full/cpu": "full hit<br>via CPU",
    "full/disk": "full hit<br>via disk",
}


def scenario_color(index: int) -> str:
    """The same colour for scenario index on every chart."""
    return PALETTE[index % len(PALETTE)]


def _layout(fig: go.Figure, title: str, height: int = 400, **layout) -> go.Figure:
    fig.update_layout(template=register_template(), height=height, title=titled(title), **layout)
    return fig


def used_tiers(comparison: Comparison) -> list[str]:
    """Tiers that served any hit in any scenario (HBM always)."""
    return [
        t
        for t in TIER_NAMES
        if t == "gpu" or any(dict(r.delivered_by_tier)[t] > 0 for r in comparison.results)
    ]


def tiers_chart(comparison: Comparison) -> go.Figure:
    """Token hit ratio per scenario, stacked by the tier that served the hit (% of prompt tokens)."""
    fig = _layout(
        go.Figure(),
        "Prompt tokens served from cache, by tier — % of prompt tokens",
        barmode="stack",
        hovermode="x unified",
        yaxis_title="token hit ratio (%)",
        xaxis_title="scenario",
    )
    for tier in used_tiers(comparison):
        fig.add_bar(
            x=list(comparison.names),
            y=[dict(r.delivered_by_tier)[tier] * 100 for r in comparison.results],
            name=f"from {TIER_LABELS[tier]}",
            marker_color=TIER_COLORS[tier],
            hovertemplate="%{y:.1f}%",
        )
    return fig


def ttft_outcome_chart(comparison: Comparison) -> go.Figure:
    """TTFT p50 (bar) and p90/p99 (whisker ends) per cache outcome and scenario, seconds on a log axis."""
    present = {c for r in comparison.results for c in r.summary.ttft_by_outcome_s}
    classes = [c for c in OUTCOME_ORDER if c in present]
    values = [
        v
        for r in comparison.results
        for row in r.summary.ttft_by_outcome_s.values()
        for v in (row["p50"], row["p99"])
    ]
    fig = _layout(
        go.Figure(),
        "TTFT by cache outcome — bar p50, whisker to p99 (seconds, log scale)",
        barmode="group",
        hovermode="closest",
        yaxis_title="TTFT",
        xaxis_title="cache outcome (tier that served the deepest hit)",
    )
    for i, (name, r) in enumerate(zip(comparison.names, comparison.results, strict=True)):
        rows = [r.summary.ttft_by_outcome_s.get(c) for c in classes]
        p50 = [row["p50"] if row else None for row in rows]
        fig.add_bar(
            x=[OUTCOME_LABELS[c] for c in classes],
            y=p50,
            name=name,
            marker_color=scenario_color(i),
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [row["p99"] - row["p50"] if row else None for row in rows],
                "arrayminus": [0.0] * len(rows),
                "color": "#374151",
                "thickness": 1.2,
            },
            customdata=[
                [row["p90"], row["p99"], int(row["requests"])] if row else [math.nan] * 3 for row in rows
            ],
            hovertemplate=(
                f"{name}<br>p50 %{{y:.3g}} s · p90 %{{customdata[0]:.3g}} s · p99 %{{customdata[1]:.3g}} s"
                "<br>%{customdata[2]:,} requests<extra></extra>"
            ),
        )
    return log_seconds_axis(fig, values)


def pods_chart(comparison: Comparison) -> go.Figure:
    """Requests routed to each pod, one bar group per pod, one bar per scenario."""
    fig = _layout(
        go.Figure(),
        "Load per pod — requests routed to each pod",
        barmode="group",
        hovermode="x unified",
        yaxis_title="requests",
        xaxis={"title": "pod", "type": "category"},
    )
    for i, (name, r) in enumerate(zip(comparison.names, comparison.results, strict=True)):
        pods = list(r.summary.pods)
        fig.add_bar(
            x=pods,
            y=[r.summary.pods[p]["requests"] for p in pods],
            name=f"{name} (max/mean {r.summary.load_imbalance:.2f}×)",
            marker_color=scenario_color(i),
            hovertemplate=f"{name}: %{{y:,}} requests<extra></extra>",
        )
    return fig


def over_time_chart(comparison: Comparison) -> go.Figure:
    """Token hit ratio per arrival-time bin (ratio of sums within the bin), one line per scenario."""
    is_hours = comparison.duration_s > 3 * 3600
    unit, scale = ("h", 3600.0) if is_hours else ("min", 60.0)
    fig = _layout(
        go.Figure(),
        "Token hit ratio over the trace — % per 1/24 of its span",
        yaxis={"title": "token hit ratio (%)", "rangemode": "tozero"},
        xaxis_title=f"time since the trace's first request ({unit})",
    )
    for i, (name, r) in enumerate(zip(comparison.names, comparison.results, strict=True)):
        series = r.summary.hit_ratio_over_time
        start = series["start_s"][0] if series["start_s"] else 0.0
        fig.add_scatter(
            x=[(s - start) / scale for s in series["start_s"]],
            y=[None if v is None or v != v else v * 100 for v in series["token_hit_ratio"]],
            name=name,
            mode="lines+markers",
            line={"color": scenario_color(i), "width": 2, "shape": "hv"},
            marker={"size": 5},
            hovertemplate=f"{name}: %{{y:.1f}}%<extra></extra>",
        )
    return fig
