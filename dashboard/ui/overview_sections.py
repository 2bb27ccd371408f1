"""The Overview's sections: each a small render function over one shared Page, so new panels
slot in without touching the others (the page itself is wiring: app_pages/overview.py)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.services.overview import Selection
from dashboard.ui import cached, charts, explain_charts, widgets
from dashboard.ui.observed_charts import render_observed
from dashboard.ui.sidebar import Controls


class Page:
    """What every section of one render shares: the store, the selection, its data cache key, events."""

    def __init__(self, path: str, controls: Controls) -> None:
        self.path = path
        b = cached.bounds(path)
        self.newest = b.last_ts
        self.sel: Selection = cached.with_window(path, controls.selection(b), self.newest)
        self.all_pods = cached.pods(path)
        self.notes = self.frame("annotations")
        self.missing = cached.missing(path, widgets.OVERVIEW_METRICS, self.newest)

    def frame(self, name: str) -> pd.DataFrame:
        return cached.frame(self.path, name, self.sel, self.newest)

    def chart(self, fig, keys: tuple[str, ...], notes: bool = True, optional: bool = False) -> None:
        widgets.chart(fig, self.notes if notes else None, self.missing, keys, optional=optional)


def render_headline(p: Page) -> None:
    kpis = cached.kpis(p.path, p.sel, p.newest)
    widgets.kpi_row(kpis, p.sel.time_range, p.sel.scope)
    widgets.skipped_note(kpis)
    st.caption(
        f"Hit-rate, TTFT, traffic and routing charts: {cached.window_caption(p.path, p.sel, p.newest)}."
    )


def render_hit_rates(p: Page, rates: pd.DataFrame) -> None:
    left, right = st.columns(2)
    with left:
        p.chart(charts.hit_rate_chart(rates, "gpu", p.all_pods, p.sel.scope), ("prefix_cache_hits",))
    with right:
        p.chart(
            charts.hit_rate_chart(rates, "offload", p.all_pods, p.sel.scope), ("external_prefix_cache_hits",)
        )


def render_ttft(p: Page) -> None:
    left, right = st.columns(2)
    with left:
        p.chart(charts.ttft_quantile_chart(p.frame("ttft_quantiles"), p.sel.scope), ("ttft_seconds",))
    with right:
        p.chart(
            charts.ttft_distribution_chart(p.frame("ttft_distribution"), p.sel.scope),
            ("ttft_seconds",),
            notes=False,
        )


def render_explain(p: Page) -> None:
    """What explains a hit rate: prompt tokens by source, waiting and preemptions, block residency."""
    explain_charts.render_prompt_sources(p.path, p.sel, p.newest, p.notes)
    explain_charts.render_waiting(p.path, p.sel, p.newest, p.notes)
    explain_charts.render_block_residency(p.path, p.sel, p.newest)


def render_kv_tiers(p: Page, rates: pd.DataFrame) -> None:
    st.subheader("KV tiers")
    left, right = st.columns(2)
    with left:
        p.chart(charts.kv_usage_chart(p.frame("kv_usage"), p.all_pods), ("kv_cache_usage",))
        p.chart(charts.capacity_chart(p.frame("capacity")), ("cache_config_info",), notes=False)
        p.chart(
            charts.hit_rate_chart(rates, "lmcache", p.all_pods, p.sel.scope),
            ("lmcache_hit_tokens",),
            optional=True,
        )
    with right:
        p.chart(
            charts.offload_traffic_chart(p.frame("offload_traffic"), p.sel.scope),
            ("kv_offload_store_bytes", "kv_offload_transfer_bytes"),
        )
        p.chart(
            charts.tier_occupancy_chart(p.frame("tier_occupancy"), p.sel.scope),
            ("lmcache_cpu_usage",),
            optional=True,
        )
        st.caption(
            "Only LMCache reports resident bytes; vLLM's native CPU tier shows capacity "
            "(`vllm:kv_offload_config_info`) and store/load traffic, not occupancy."
        )


def render_routing(p: Page) -> None:
    st.subheader("Routing")
    routes = p.frame("routing")
    left, right = st.columns([2, 1])
    with left:
        p.chart(charts.routing_chart(routes, p.all_pods), ("epp_scheduler_attempts",))
    with right:
        p.chart(charts.routing_total_chart(routes, p.all_pods), ("epp_scheduler_attempts",), notes=False)


def render_rates(p: Page) -> None:
    rates = p.frame("hit_rate")
    render_hit_rates(p, rates)
    render_ttft(p)


def render_explain_all(p: Page) -> None:
    render_explain(p)
    explain_charts.render_connector_health(p.path, p.sel, p.newest, p.notes)
    explain_charts.render_epp_predicted(p.path, p.sel, p.newest, p.notes)


def render_tiers_and_routing(p: Page) -> None:
    render_kv_tiers(p, p.frame("hit_rate"))
    render_routing(p)


def render_observed_section(p: Page) -> None:
    render_observed(p.path, p.sel, p.newest, p.notes)


# NOTE: one section at a time: every chart costs the browser ~0.2 s to draw, so the page draws
# the few an operator looks at first and the rest on request (the choice lives in the URL).
SECTIONS = {
    "Hit rates & TTFT": render_rates,
    "What explains the hit rate": render_explain_all,
    "KV tiers & routing": render_tiers_and_routing,
    "Observed vs replayed": render_observed_section,
}
DEFAULT_SECTION = "Hit rates & TTFT"
