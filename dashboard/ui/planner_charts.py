"""Figures for the capacity planner: the curve each hardware option's answer came from, and TTFT by tier."""

from __future__ import annotations

import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.core.types import SampledCurve
from dashboard.services.planner import Plan, TierTtft, describe_target
from dashboard.services.planner_policies import PolicyAtPlan
from dashboard.ui.log_axes import fitted_log_seconds_axis, log_count_axis, log_seconds_axis
from dashboard.ui.theme import PALETTE, register_template


def plan_curve_chart(plan: Plan) -> go.Figure:
    """Per hardware: token hit ratio (%) and TTFT of the target quantile (s) versus pods, answer marked."""
    req = plan.request
    quantile = "p90" if req.target == "hit" else req.target.removeprefix("ttft-")
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.1,
        subplot_titles=("token hit ratio, GPU + CPU tier (%)", f"TTFT {quantile} (log scale)"),
    )
    fig.update_layout(
        template=register_template(),
        height=450,
        hovermode="x unified",
        margin={"t": 95},
        title=f"Capacity plan: {describe_target(req)} — {req.model}, pooled LRU over N pods",
    )
    for i, option in enumerate(plan.options):
        color = PALETTE[i % len(PALETTE)]
        pods = [p.num_pods for p in option.curve]
        common = {
            "legendgroup": option.hardware,
            "line": {"color": color, "width": 2},
            "mode": "lines+markers",
        }
        fig.add_scatter(
            x=pods,
            y=[p.token_hit_ratio * 100 for p in option.curve],
            name=option.hardware,
            hovertemplate="%{y:.1f}%",
            row=1,
            col=1,
            **common,
        )
        fig.add_scatter(
            x=pods,
            y=[p.ttft_s[quantile] for p in option.curve],
            name=option.hardware,
            showlegend=False,
            hovertemplate="%{y:.3f} s",
            row=1,
            col=2,
            **common,
        )
        if option.point is not None:
            marker = {"symbol": "star", "size": 14, "color": color, "line": {"color": "#111827", "width": 1}}
            for col, y in ((1, option.point.token_hit_ratio * 100), (2, option.point.ttft_s[quantile])):
                fig.add_scatter(
                    x=[option.num_pods],
                    y=[y],
                    mode="markers",
                    marker=marker,
                    showlegend=False,
                    legendgroup=option.hardware,
                    hovertemplate=f"{option.hardware}: plan",
                    row=1,
                    col=col,
                )
    col, y = (1, req.target_value * 100) if req.target == "hit" else (2, req.target_value)
    fig.add_hline(y=y, line={"dash": "dash", "color": "#6b7280"}, row=1, col=col)
    # NOTE: an annotation on a log axis is placed at the log of its y; add_hline's own label put a
    # 0.3 s target's at 2 s
    fig.add_annotation(
        text="target",
        x=0,
        xref=f"x{col if col > 1 else ''} domain",
        y=math.log10(y) if col == 2 else y,
        yref=f"y{col if col > 1 else ''}",
        xanchor="left",
        yanchor="bottom",
        showarrow=False,
    )
    pods = [p.num_pods for o in plan.options for p in o.curve]
    if max(pods, default=1) > 16:
        log_count_axis(fig, pods, axis="x")  # '20', '50', never a bare '2' after '10'
    fig.update_xaxes(title_text="pods")
    ttfts = [p.ttft_s[quantile] for o in plan.options for p in o.curve]
    return fitted_log_seconds_axis(fig, ttfts, row=1, col=2)


def _figure(title: str, height: int, **layout) -> go.Figure:
    """An empty figure in the shared template."""
    return go.Figure(layout={"template": register_template(), "title": title, "height": height, **layout})


def tier_ttft_chart(curves: list[TierTtft], model: str) -> go.Figure:
    """TTFT (s) versus prompt length per hardware: CPU-tier hit (solid), miss (dashed), HBM hit (dotted)."""
    fig = _figure(
        f"TTFT by where the prompt's KV comes from — {model}, idle pod (seconds, log scale)",
        400,
        hovermode="x unified",
        xaxis_title="prompt tokens",
        yaxis_title="TTFT",
    )
    for i, c in enumerate(curves):
        color = PALETTE[i % len(PALETTE)]
        for label, values, dash in (
            ("CPU-tier hit", c.cpu_hit_s, "solid"),
            ("miss", c.miss_s, "dash"),
            ("HBM hit", c.gpu_hit_s, "dot"),
        ):
            fig.add_scatter(
                x=c.prompt_tokens,
                y=values,
                name=f"{c.hardware} {label}",
                mode="lines",
                line={"color": color, "dash": dash, "width": 2.5 if dash == "solid" else 1.5},
                legendgroup=c.hardware,
                hovertemplate="%{y:.3f} s",
            )
    log_count_axis(fig, [t for c in curves for t in c.prompt_tokens], axis="x")
    return log_seconds_axis(fig, [s for c in curves for s in (*c.cpu_hit_s, *c.miss_s, *c.gpu_hit_s)])


def plan_table(plan: Plan) -> list[dict]:
    """One row per hardware option: the answer first (pods, cost, hit ratio, TTFT), then what it
    rests on (capacity per pod, CPU-hit TTFT, the link), so the answer shows without scrolling."""
    rows = []
    for o in plan.options:
        p = o.point
        rows.append(
            {
                "hardware": o.hardware,
                "pods": o.num_pods,
                "$ per hour": round(o.cost_per_hour, 2) if o.cost_per_hour is not None else None,
                "token hit ratio (%)": round(p.token_hit_ratio * 100, 1) if p else None,
                "TTFT p90 (s)": round(p.ttft_s["p90"], 3) if p else None,
                "TTFT p99 (s)": round(p.ttft_s["p99"], 3) if p else None,
                "pod utilization (%)": round(p.utilization * 100, 1) if p else None,
                "HBM KV per pod (GB)": round(o.hbm_kv_bytes_per_pod / 1e9, 1),
                "CPU KV per pod (GB)": round(o.cpu_kv_bytes_per_pod / 1e9, 1),
                "CPU-hit TTFT (ms)": round(o.cpu_hit_ttft_s * 1000, 1),
                "CPU link": o.link_nominal,
                "note": o.note,
            }
        )
    return rows


def policy_chart(plan: Plan, curves: list[SampledCurve], readouts: list[PolicyAtPlan]) -> go.Figure:
    """Token hit ratio (%) of one cache versus its capacity per eviction policy (LRU solid and exact,
    others dashed and labelled as sampled, × at each plan's exact replay), each hardware option's
    planned pooled capacity marked."""
    fig = _figure(
        f"Eviction policies at the planned capacity — {plan.request.model}, one pooled cache",
        430,
        hovermode="closest",
        xaxis={"title": "pooled cache capacity (blocks, log scale)", "type": "log", "tickformat": "~s"},
        yaxis={"title": "token hit ratio (%)", "rangemode": "tozero"},
    )
    for i, c in enumerate(curves):
        exact_lru = c.policy == "lru"
        fig.add_scatter(
            x=c.curve.capacity_blocks,
            y=c.curve.token_hit_ratio * 100,
            name=c.label(),
            mode="lines",
            line={
                "width": 2.5 if exact_lru else 2,
                "dash": "solid" if exact_lru else "dash",
                "color": "#111827" if exact_lru else PALETTE[(i - 1) % len(PALETTE)],
            },
            hovertemplate=f"{c.policy}: %{{x:,}} blocks, %{{y:.1f}}%<extra></extra>",
        )
        if not exact_lru and readouts:
            fig.add_scatter(
                x=[r.pooled_blocks for r in readouts],
                y=[r.token_hit_ratio[c.policy] * 100 for r in readouts],
                name=f"{c.policy}: exact replay at each plan",
                mode="markers",
                marker={"symbol": "x", "size": 11, "color": PALETTE[(i - 1) % len(PALETTE)]},
                hovertemplate=f"{c.policy}, exact: %{{x:,}} blocks, %{{y:.2f}}%<extra></extra>",
            )
    for k, r in enumerate(readouts):
        fig.add_vline(x=max(r.pooled_blocks, 1), line={"dash": "dot", "color": "#9ca3af", "width": 1})
        fig.add_annotation(
            x=math.log10(max(r.pooled_blocks, 1)),
            y=0.03 + 0.08 * k,
            yref="paper",
            text=f"{r.hardware}: {r.num_pods} pod{'' if r.num_pods == 1 else 's'}, {r.pooled_blocks:,} blocks",
            showarrow=False,
            xanchor="left",
            xshift=4,
            font={"size": 11, "color": "#374151"},
            bgcolor="rgba(255,255,255,0.8)",
        )
    return fig


def policy_rows(readouts: list[PolicyAtPlan]) -> list[dict]:
    """One row per hardware option: pods, pooled capacity, and each policy's token hit ratio (%) there."""
    return [
        {"hardware": r.hardware, "pods": r.num_pods, "pooled blocks": r.pooled_blocks}
        | {f"{p} (%)": round(v * 100, 1) for p, v in r.token_hit_ratio.items()}
        for r in readouts
    ]
