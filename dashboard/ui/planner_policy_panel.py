"""The Planner page's eviction-policy panel: other policies' curves beside LRU's, read at each plan."""

from __future__ import annotations

import streamlit as st

from dashboard.services import planner, planner_policies, policy_curves
from dashboard.services.planner import Plan
from dashboard.ui import planner_cached, planner_charts
from dashboard.ui.export import caption_text, export_buttons
from dashboard.ui.theme import PLOTLY_CONFIG


def policy_panel(path: str, trace_key: str, result: Plan, req: planner.PlanRequest, digest: str) -> list[str]:
    """The policy picker and the exact-curves switch, and for the policies chosen their readouts
    at each plan, their curves and export; returns the policies chosen."""
    left, right = st.columns([4, 1])
    chosen = left.multiselect(
        "Other eviction policies at these capacities",
        policy_curves.other_policies(),
        [],
        key="planner_policies",
        bind="query-params",
        # NOTE: no format_func: the URL would carry the formatted label instead of the policy's name
        help="the plan assumes vLLM's LRU; each policy chosen gets its token hit ratio at every planned "
        "pooled capacity (an exact replay) and its curve beside LRU's (sampled on a large trace; "
        "docs/planner.md). " + policy_curves.reference_note(),
    )
    exact = right.toggle(
        "Exact curves",
        key="planner_exact_curves",
        bind="query-params",
        help=f"off: on a trace of more than {policy_curves.exact_limits()} each policy's curve is a "
        "sampled approximation, labelled with its measured error (the table is exact either way); on: "
        "one replay of the whole trace per capacity (slower)",
    )
    if chosen:
        with st.spinner(f"Replaying the curves of {', '.join(chosen)} …"):
            curves = [planner_cached.policy_curve(path, trace_key, p, exact) for p in ["lru", *chosen]]
            readouts = planner_cached.readouts(path, trace_key, req, digest, tuple(chosen))
        checks = planner_policies.curve_checks(readouts, curves)
        policy_fig = planner_charts.policy_chart(result, curves, readouts)
        st.plotly_chart(
            policy_fig, theme=None, config=PLOTLY_CONFIG, width="stretch", key="planner_policy_curves"
        )
        st.dataframe(planner_charts.policy_rows(readouts), hide_index=True, width="stretch")
        inputs, window, source = planner.caption_parts(result)
        export_buttons(
            policy_fig,
            caption_text(f"{inputs}; curves: {', '.join(c.label() for c in curves)}", window, source),
            key="planner_policy_export",
            filename="kvscope-plan-policies",
        )
        st.caption(
            "The table: each policy's token hit ratio at a plan's pooled capacity, by an exact replay of "
            "one cache that size (LRU's is the plan's own). "
            + policy_curves.approximation_note(curves, checks)
        )
    return chosen
