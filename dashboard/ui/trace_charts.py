"""Figures for the Traces page: arrivals, size distributions, reuse gaps, sessions, the prefix icicle."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from dashboard.core.trace_stats import ROOT, Cdf, Histogram, PrefixTree, TraceStats
from dashboard.ui.log_axes import log_count_axis, log_seconds_axis
from dashboard.ui.theme import PALETTE, register_template

OTHER_COLOR = "#d1d5db"  # the icicle's requests outside the shown prefixes
HEIGHT = 320


def themed_figure(title: str, x_title: str, y_title: str) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(
        template=register_template(),
        height=HEIGHT,
        hovermode="closest",
        title=title,
        xaxis_title=x_title,
        yaxis_title=y_title,
        showlegend=False,
    )
    return fig


def arrival_chart(stats: TraceStats) -> go.Figure:
    """Requests per second over the trace, in bins of stats.rate_bin_s."""
    fig = themed_figure(
        f"Arrival rate — requests/s, {stats.rate_bin_s:g} s bins", "trace time (s)", "requests/s"
    )
    fig.add_scatter(
        x=stats.rate_bin_start_s,
        y=stats.arrival_rate_per_s,
        mode="lines",
        line={"shape": "hv"},
        hovertemplate="t=%{x:g} s: %{y:.2f} req/s<extra></extra>",
    )
    return fig


def histogram_chart(hist: Histogram, title: str, x_title: str, y_title: str = "requests") -> go.Figure:
    """Counts per bin of a precomputed histogram, as touching bars."""
    fig = themed_figure(title, x_title, y_title)
    centers = (hist.edges[:-1] + hist.edges[1:]) / 2
    fig.add_bar(
        x=centers,
        y=hist.counts,
        width=np.diff(hist.edges),
        marker_color=PALETTE[0],
        customdata=np.stack([hist.edges[:-1], hist.edges[1:]], axis=-1) if hist.counts.size else None,
        hovertemplate="[%{customdata[0]:,.0f}, %{customdata[1]:,.0f}): %{y:,}<extra></extra>",
    )
    fig.update_layout(bargap=0)
    return fig


def cdf_chart(dist: Cdf, title: str, x_title: str, seconds: bool = False) -> go.Figure:
    """Fraction of values ≤ x (log x axis, in seconds or counts; zero values sit below its left edge)."""
    fig = themed_figure(f"{title}<br><sup>{dist.num_values:,} values</sup>", x_title, "fraction ≤ x (%)")
    positive = dist.values > 0
    fig.add_scatter(
        x=dist.values[positive],
        y=dist.fractions[positive] * 100,
        mode="lines",
        line={"width": 2.5, "color": PALETTE[2]},
        hovertemplate="≤ %{x:,.3g}: %{y:.0f}%<extra></extra>",
    )
    (log_seconds_axis if seconds else log_count_axis)(fig, dist.values[positive], axis="x")
    fig.update_yaxes(range=[0, 100])
    return fig


def prefix_icicle(tree: PrefixTree, block_tokens: int) -> go.Figure:
    """The most shared prefixes as an icicle: width = requests holding the prefix."""
    ids = ["root"] + [f"b{n}" for n in tree.node_ids]
    parents = [""] + ["root" if p == ROOT else f"b{p}" for p in tree.parent_ids]
    values = [tree.num_requests_total, *tree.num_requests.tolist()]
    labels = ["all requests"] + [f"{t:,} tok" for t in tree.prefix_tokens]
    hover = ["every request"] + [
        f"block {n} at depth {d}: prefix ≤ {t:,} tokens"
        for n, d, t in zip(tree.node_ids, tree.depth_blocks, tree.prefix_tokens, strict=True)
    ]
    colors = [""] * len(ids)  # "": the icicle's own colour for the branch
    counts, shown = _child_totals(tree)
    # "total" when every prefix's count covers its children's (chained ids), else "remainder"
    branch_values = "total" if all(counts[p] >= n for p, n in shown.items()) else "remainder"
    if branch_values == "total":  # what a shown prefix's children leave is named, not left blank
        for parent, others in ((p, counts[p] - n) for p, n in shown.items() if counts[p] > n):
            ids.append(f"o{parent}")
            parents.append("root" if parent == ROOT else f"b{parent}")
            labels.append("other first blocks" if parent == ROOT else "other next blocks")
            values.append(others)
            hover.append(
                f"requests whose first block is none of these {tree.node_ids.size} prefixes"
                if parent == ROOT
                else "requests holding this prefix that go on with a block not shown, or end here"
            )
            colors.append(OTHER_COLOR)
    fig = go.Figure(
        go.Icicle(
            ids=ids,
            parents=parents,
            values=values,
            labels=labels,
            customdata=hover,
            branchvalues=branch_values,
            marker={"colors": colors},
            hovertemplate="%{customdata}<br>%{value:,} requests<extra></extra>",
            root_color="#e5e7eb",
            tiling={"orientation": "v"},
            maxdepth=12,
        )
    )
    fig.update_layout(
        template=register_template(),
        height=520,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        title=f"Most shared prefixes — requests per prefix (top {tree.node_ids.size}, "
        f"{block_tokens}-token blocks, depth downwards)",
    )
    return fig


def _child_totals(tree: PrefixTree) -> tuple[dict[int, int], dict[int, int]]:
    """Requests per prefix (the root's too), and per prefix with a child shown (and the root) the
    requests its shown children hold."""
    counts = dict(zip(tree.node_ids.tolist(), tree.num_requests.tolist(), strict=True))
    counts[ROOT] = tree.num_requests_total
    shown: dict[int, int] = {ROOT: 0}
    for parent, num in zip(tree.parent_ids.tolist(), tree.num_requests.tolist(), strict=True):
        shown[parent] = shown.get(parent, 0) + num
    return counts, shown
