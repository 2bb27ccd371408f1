"""Where each scenario's hits go: the hit-rate waterfall, and the LRU curve with each scenario's HBM marked."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from dashboard.services.compare import Comparison
from dashboard.ui.theme import TIER_COLORS, register_template, titled
from dashboard.ui.whatif_charts import TIER_LABELS, scenario_color, used_tiers

STEP_TICKS = {  # short x labels, so four steps × four scenarios never rotate
    "ceiling": "ceiling",
    "lost to routing": "routing",
    "lost to capacity": "capacity",
    "delivered": "delivered",
}
STEP_COLORS = {"ceiling": "#94a3b8", "lost to routing": "#7c3aed", "lost to capacity": "#dc2626"}
STEP_LEGEND = {
    "ceiling": "unlimited-cache ceiling",
    "lost to routing": "lost to routing (split vs pooled)",
    "lost to capacity": "lost to capacity & eviction",
}


def waterfall_chart(comparison: Comparison) -> go.Figure:
    """Per scenario: ceiling → lost to routing → lost to capacity → delivered by tier (token hit ratio, %)."""
    fig = go.Figure()
    fig.update_layout(
        template=register_template(),
        height=480,
        barmode="overlay",
        bargap=0.25,
        hovermode="closest",
        title=titled("Hit-rate waterfall per scenario — token hit ratio (% of prompt tokens)"),
        yaxis={"title": "token hit ratio (%)", "rangemode": "tozero"},
        xaxis={"title": "scenario and step", "type": "multicategory", "tickangle": 0},
    )
    bars: dict[str, tuple[list, list, list, list]] = {}  # legend → xs, bases, heights, texts

    def put(legend: str, name: str, step: str, low: float, high: float, text: str) -> None:
        xs, bases, heights, texts = bars.setdefault(legend, ([[], []], [], [], []))
        xs[0].append(name)
        xs[1].append(STEP_TICKS[step])
        bases.append(min(low, high) * 100)
        heights.append(abs(high - low) * 100)
        texts.append(text)

    tiers = used_tiers(comparison)
    totals = ([[], []], [], [])  # x, y, text of the delivered totals above their stacks
    for i, name in enumerate(comparison.names):
        w = comparison.waterfall(i)
        after_routing = w.ceiling - w.lost_to_routing
        put("ceiling", name, "ceiling", 0.0, w.ceiling, f"{w.ceiling:.1%}")
        put("lost to routing", name, "lost to routing", after_routing, w.ceiling, _pts(-w.lost_to_routing))
        put(
            "lost to capacity",
            name,
            "lost to capacity",
            w.delivered,
            after_routing,
            _pts(-w.lost_to_capacity),
        )
        level = 0.0
        for tier in tiers:
            value = w.tier(tier)
            put(
                f"tier:{tier}",
                name,
                "delivered",
                level,
                level + value,
                f"{value:.1%}" if 0.04 < value < w.delivered else "",  # the total sits on top
            )
            level += value
        totals[0][0].append(name)
        totals[0][1].append(STEP_TICKS["delivered"])
        totals[1].append(w.delivered * 100)
        totals[2].append(f"<b>{w.delivered:.1%}</b>")
    for legend, (xs, bases, heights, texts) in bars.items():
        tier = legend.removeprefix("tier:") if legend.startswith("tier:") else None
        fig.add_bar(
            x=xs,
            y=heights,
            base=bases,
            name=f"delivered: {TIER_LABELS[tier]}" if tier else STEP_LEGEND[legend],
            marker_color=TIER_COLORS[tier] if tier else STEP_COLORS[legend],
            text=texts,
            textposition="inside" if tier else "outside",
            insidetextanchor="middle",
            textangle=0,
            constraintext="none",
            textfont={"size": 11},
            cliponaxis=False,
            hovertemplate="%{x}: %{text}<extra></extra>",
        )
    fig.add_scatter(
        x=totals[0],
        y=totals[1],
        text=totals[2],
        mode="text",
        textposition="top center",
        showlegend=False,
        hovertemplate="%{x}: delivered %{text}<extra></extra>",
    )
    return fig


def _pts(delta: float) -> str:
    """A change in percentage points, signed; −0.0 shows as 0.0."""
    points = round(delta * 100, 1)
    return f"{points:+.1f} pts" if points else "0.0 pts"


def mrc_chart(comparison: Comparison) -> go.Figure:
    """Token hit ratio of one cache versus its capacity: LRU exact, each other policy the scenarios use
    dashed (approximate on a large trace, its legend says how; × where an exact replay checked it),
    each scenario's all-pod HBM and HBM-tier hits marked."""
    curve = comparison.curve
    fig = go.Figure()
    fig.update_layout(
        template=register_template(),
        height=440,
        hovermode="closest",
        title=titled(
            "Miss-ratio curve: token hit ratio versus one cache's capacity, by eviction policy — "
            f"% ({comparison.num_blocks:,} unique {comparison.block_tokens}-token blocks)"
        ),
        xaxis={"title": "cache capacity (blocks, log scale)", "type": "log", "dtick": 1, "tickformat": "~s"},
        yaxis={"title": "token hit ratio (%)", "rangemode": "tozero"},
    )
    fig.add_scatter(
        x=curve.capacity_blocks,
        y=curve.token_hit_ratio * 100,
        name="lru (exact): one cache of that capacity",
        mode="lines",
        line={"width": 2.5, "color": "#111827"},
        hovertemplate="%{x:,} blocks: %{y:.1f}%<extra></extra>",
    )
    policies = [r.scenario.policy for r in comparison.results]
    for other in comparison.policy_curves:
        fig.add_scatter(
            x=other.curve.capacity_blocks,
            y=other.curve.token_hit_ratio * 100,
            name=other.label(),
            mode="lines",
            line={"width": 2, "dash": "dash", "color": scenario_color(policies.index(other.policy))},
            hovertemplate=f"{other.policy}: %{{x:,}} blocks, %{{y:.1f}}%<extra></extra>",
        )
        checks = [c for c in comparison.spot_checks if c.policy == other.policy]
        if checks:
            fig.add_scatter(
                x=[c.capacity_blocks for c in checks],
                y=[c.exact * 100 for c in checks],
                name=f"{other.policy}: exact replay there",
                mode="markers",
                marker={"symbol": "x", "size": 11, "color": scenario_color(policies.index(other.policy))},
                hovertemplate=f"{other.policy}, exact: %{{x:,}} blocks, %{{y:.2f}}%<extra></extra>",
            )
    fig.add_hline(
        y=comparison.ceiling * 100,
        line={"dash": "dot", "color": "#6b7280"},
        annotation_text=f"ceiling {comparison.ceiling:.1%}",
        annotation_position="bottom right",
    )
    groups: dict[int, list[str]] = {}
    for i, (name, r) in enumerate(zip(comparison.names, comparison.results, strict=True)):
        groups.setdefault(r.total_hbm_blocks, []).append(name)
        fig.add_scatter(
            x=[max(r.total_hbm_blocks, 1)],
            y=[dict(r.delivered_by_tier)["gpu"] * 100],
            name=f"{name}: HBM-tier hits",
            mode="markers",
            marker={"symbol": "diamond", "size": 13, "color": scenario_color(i), "line": {"width": 1}},
            hovertemplate=f"{name}: %{{x:,}} HBM blocks over all pods, %{{y:.1f}}% from HBM<extra></extra>",
        )
    for k, (capacity, names) in enumerate(sorted(groups.items())):
        x = max(capacity, 1)
        fig.add_vline(x=x, line={"dash": "dash", "color": "#9ca3af", "width": 1})
        # NOTE: annotations on a log axis take log10(x); stacked from the bottom (under the curve,
        # which rises to the right) so close capacities stay legible.
        fig.add_annotation(
            x=math.log10(x),
            y=0.03 + 0.08 * k,
            yref="paper",
            text=f"{', '.join(names)}: HBM of all pods, {capacity:,} blocks",
            showarrow=False,
            xanchor="left",
            yanchor="bottom",
            xshift=4,
            font={"size": 11, "color": "#374151"},
            bgcolor="rgba(255,255,255,0.8)",
        )
    return fig
