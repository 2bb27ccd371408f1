"""Figures for the What-if page: the LRU curve, hits by tier, requests and hits by pod."""

from __future__ import annotations

import plotly.graph_objects as go

from dashboard.engine.mrc import MissRatioCurve
from dashboard.engine.summary import ReplaySummary
from dashboard.ui.theme import TIER_COLORS, register_template


def mrc_chart(curve: MissRatioCurve, marked_capacity: int | None, total_blocks_label: str) -> go.Figure:
    """Block and token hit ratio of one LRU cache versus its capacity (blocks, log axis)."""
    fig = go.Figure()
    fig.update_layout(
        template=register_template(),
        height=380,
        hovermode="x unified",
        title=f"LRU hit ratio versus cache capacity — one cache, % ({total_blocks_label})",
        xaxis_title="capacity (blocks)",
        yaxis_title="hit ratio (%)",
    )
    fig.add_scatter(
        x=curve.capacity_blocks,
        y=curve.block_hit_ratio * 100,
        name="block hit ratio",
        mode="lines",
        line={"width": 2.5, "color": "#2563eb"},
        hovertemplate="%{y:.1f}%",
    )
    fig.add_scatter(
        x=curve.capacity_blocks,
        y=curve.token_hit_ratio * 100,
        name="token hit ratio",
        mode="lines",
        line={"width": 2, "dash": "dot", "color": "#16a34a"},
        hovertemplate="%{y:.1f}%",
    )
    if marked_capacity:
        fig.add_vline(
            x=marked_capacity,
            line={"dash": "dash", "color": "#6b7280"},
            annotation_text="this replay's HBM (all pods)",
            annotation_position="top left",
        )
    fig.update_xaxes(type="log")
    return fig


def tier_chart(summary: ReplaySummary) -> go.Figure:
    """Prompt tokens served from each tier, % of all prompt tokens."""
    total = max(summary.prefill_tokens_saved / max(summary.token_hit_ratio, 1e-12), 1.0)
    names = [t for t, v in summary.tiers.items() if v["token_hits"] or t == "gpu"]
    fig = go.Figure()
    fig.update_layout(
        template=register_template(),
        height=300,
        hovermode="closest",
        title="Prompt tokens served from cache, by tier — % of prompt tokens",
        yaxis_title="%",
    )
    fig.add_bar(
        x=names,
        y=[summary.tiers[t]["token_hits"] / total * 100 for t in names],
        marker_color=[TIER_COLORS.get(t, "#475569") for t in names],
        hovertemplate="%{y:.1f}%<extra></extra>",
    )
    return fig


def pods_chart(summary: ReplaySummary) -> go.Figure:
    """Requests routed to each pod and each pod's block hit ratio."""
    pods = list(summary.pods)
    fig = go.Figure()
    fig.update_layout(
        template=register_template(),
        height=300,
        hovermode="closest",
        title="Requests per pod (bars) and block hit ratio per pod (%, dots)",
        yaxis={"title": "requests"},
        yaxis2={"title": "hit ratio (%)", "overlaying": "y", "side": "right", "range": [0, 100]},
    )
    fig.add_bar(
        x=pods, y=[summary.pods[p]["requests"] for p in pods], name="requests", marker_color="#93c5fd"
    )
    fig.add_scatter(
        x=pods,
        y=[summary.pods[p]["block_hit_ratio"] * 100 for p in pods],
        name="hit ratio",
        mode="markers",
        marker={"size": 10, "color": "#dc2626"},
        yaxis="y2",
    )
    return fig
