"""Streamlit blocks that show a What-if comparison: overload flags, the table, the charts, export, command lines."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from dashboard.services import compare, whatif
from dashboard.services.policy_curves import approximation_note
from dashboard.ui import whatif_capacity_charts as capacity
from dashboard.ui import whatif_charts as charts
from dashboard.ui.export import caption_text, export_buttons
from dashboard.ui.theme import PLOTLY_CONFIG

CHARTS = {
    "Hit-rate waterfall": capacity.waterfall_chart,
    "Hit ratio by tier": charts.tiers_chart,
    "TTFT by cache outcome": charts.ttft_outcome_chart,
    "Load per pod": charts.pods_chart,
    "Hit ratio over time": charts.over_time_chart,
    "Miss-ratio curve": capacity.mrc_chart,
}


def show(fig: go.Figure, key: str) -> None:
    """One chart in the shared template, full width of its column."""
    st.plotly_chart(fig, theme=None, config=PLOTLY_CONFIG, width="stretch", key=key)


def overload_warnings(comparison: compare.Comparison) -> None:
    """One warning per scenario whose pods cannot keep up with the trace's prefill work."""
    for name, r in zip(comparison.names, comparison.results, strict=True):
        load = r.load
        if load.is_overloaded:
            pods = f"{r.scenario.num_pods} pod{'s' if r.scenario.num_pods > 1 else ''}"
            busiest = (
                f"; its busiest pod is {load.busiest_pod_utilization:.0%} busy"
                if load.busiest_pod_utilization > load.utilization * 1.05
                else ""
            )
            st.warning(
                f"**{name} is overloaded**: prefill work arrives at {load.arrival_tokens_per_s:,.0f} "
                f"uncached tokens/s, and its {pods} compute at most {load.capacity_tokens_per_s:,.0f} "
                f"tokens/s at this request mix ({r.scenario.hardware}, {r.scenario.model}): "
                f"{load.utilization:.0%} busy{busiest}. Queues grow for the whole trace, so its TTFT "
                f"(p50 {r.summary.ttft_s['p50']:,.1f} s) measures the backlog, not the cache.",
                icon=":material/warning:",
            )


def summary_table(comparison: compare.Comparison) -> None:
    """One row per scenario: what it is and its headline figures."""
    rows = []
    for i, (name, r) in enumerate(zip(comparison.names, comparison.results, strict=True)):
        s, w = r.summary, comparison.waterfall(i)
        rows.append(
            {
                "scenario": name,
                "cluster": compare.describe(r.scenario, r.hbm_blocks),
                "token hit (%)": round(s.token_hit_ratio * 100, 2),
                "block hit (%)": round(s.block_hit_ratio * 100, 2),
                "routing loss (pts)": round(w.lost_to_routing * 100, 2),
                "TTFT p50 (s)": float(f"{s.ttft_s['p50']:.3g}"),
                "TTFT p99 (s)": float(f"{s.ttft_s['p99']:.3g}"),
                "prefill busy (%)": round(r.load.utilization * 100, 1),
                "overloaded": r.load.is_overloaded,
                "load max/mean": round(s.load_imbalance, 2),
            }
        )
    st.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        # NOTE: the cluster line runs to ~60 characters; at "medium" it was cut after the policy.
        # The scenario stays pinned while the figures scroll past it.
        column_config={
            "scenario": st.column_config.TextColumn(pinned=True),
            "cluster": st.column_config.TextColumn(width="large"),
        },
    )


def chart_grid(comparison: compare.Comparison) -> None:
    """Every comparison chart: waterfall, tiers and pods, TTFT and time, the curve."""
    show(capacity.waterfall_chart(comparison), "whatif_waterfall")
    left, right = st.columns(2)
    with left:
        show(charts.tiers_chart(comparison), "whatif_tiers")
        show(charts.ttft_outcome_chart(comparison), "whatif_ttft")
    with right:
        show(charts.pods_chart(comparison), "whatif_pods")
        show(charts.over_time_chart(comparison), "whatif_time")
    show(capacity.mrc_chart(comparison), "whatif_mrc")
    note = approximation_note(comparison.policy_curves, comparison.spot_checks)
    if note:
        st.caption(note)


def export_panel(comparison: compare.Comparison) -> None:
    """PNG and self-contained HTML of the chosen chart, captioned with inputs, data and version."""
    cols = st.columns([1, 2])
    name = cols[0].selectbox("Chart to export", list(CHARTS), key="whatif_export_chart", bind="query-params")
    with cols[1]:
        export_buttons(
            CHARTS[name](comparison),
            caption_text(*compare.caption_parts(comparison)),
            key="whatif_export",
            filename=f"kvscope-whatif-{name.lower().replace(' ', '-')}",
        )


def command_lines(
    comparison: compare.Comparison, src: whatif.TraceSource, fmt: str, db_path: str, engine_s: float
) -> None:
    """The `kvscope replay` line of each scenario, naming the user's trace."""
    lines = [
        f"# {name}\n{whatif.command_line(src, fmt, r.scenario, db_path)}"
        for name, r in zip(comparison.names, comparison.results, strict=True)
    ]
    st.caption(f"Engine time {engine_s:.2f} s over the scenarios. The same replays on the command line:")
    st.code("\n".join(lines), language="bash")


def reopened_note(comparison: compare.Comparison, reopened: whatif.Reopened | None) -> None:
    """Beside reopened saved runs: their saved token hit ratio against the one recomputed now."""
    if reopened is None:
        return
    now = zip(comparison.names, comparison.results, strict=True)
    pairs = [
        f"{run} → {name}: saved {saved:.2%}, now {r.summary.token_hit_ratio:.2%}"
        for run, saved, scenario, (name, r) in zip(
            reopened.names, reopened.saved_token_hit_ratios, reopened.scenarios, now, strict=False
        )
        if scenario == r.scenario  # NOTE: only while the user has not edited the reopened scenario
    ]
    if pairs:
        st.caption("Reopened saved runs (token hit ratio): " + " · ".join(pairs))
