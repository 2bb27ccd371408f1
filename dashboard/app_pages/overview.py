"""Overview: hit rates by tier, TTFT, tier capacity and traffic, routing — with events marked."""

from __future__ import annotations

import streamlit as st

from dashboard.ui import cached, charts, widgets

st.header("Overview")
path, bounds, selection = widgets.page_context()
if selection is None:
    widgets.no_data_message(path)
    st.stop()


@st.fragment(run_every=selection.refresh_s)
def body() -> None:
    """Everything that refreshes on its own when auto-refresh is on."""
    tr = selection.time_range(cached.bounds(path))
    pods_key = selection.pods
    all_pods = cached.pods(path)
    notes = cached.frame(path, "annotations", tr)
    widgets.kpi_row(cached.kpis(path, tr), tr)
    missing = cached.missing(path, widgets.OVERVIEW_METRICS)

    rates = cached.frame(path, "hit_rate", tr, pods_key)
    left, right = st.columns(2)
    with left:
        widgets.chart(charts.hit_rate_chart(rates, "gpu", all_pods), notes, missing, ("prefix_cache_hits",))
    with right:
        widgets.chart(
            charts.hit_rate_chart(rates, "offload", all_pods), notes, missing, ("external_prefix_cache_hits",)
        )

    left, right = st.columns(2)
    with left:
        widgets.chart(
            charts.ttft_quantile_chart(cached.frame(path, "ttft_quantiles", tr)),
            notes,
            missing,
            ("ttft_seconds",),
        )
    with right:
        widgets.chart(
            charts.ttft_distribution_chart(cached.frame(path, "ttft_distribution", tr)),
            None,
            missing,
            ("ttft_seconds",),
        )

    st.subheader("KV tiers")
    left, right = st.columns(2)
    with left:
        widgets.chart(
            charts.kv_usage_chart(cached.frame(path, "kv_usage", tr, pods_key), all_pods),
            notes,
            missing,
            ("kv_cache_usage",),
        )
        widgets.chart(
            charts.capacity_chart(cached.frame(path, "capacity")), None, missing, ("cache_config_info",)
        )
        widgets.chart(
            charts.hit_rate_chart(rates, "lmcache", all_pods),
            notes,
            missing,
            ("lmcache_hit_tokens",),
            optional=True,
        )
    with right:
        widgets.chart(
            charts.offload_traffic_chart(cached.frame(path, "offload_traffic", tr, pods_key)),
            notes,
            missing,
            ("kv_offload_store_bytes", "kv_offload_transfer_bytes"),
        )
        widgets.chart(
            charts.tier_occupancy_chart(cached.frame(path, "tier_occupancy", tr, pods_key)),
            notes,
            missing,
            ("lmcache_cpu_usage",),
            optional=True,
        )
        st.caption(
            "Only LMCache reports resident bytes; vLLM's native CPU tier shows capacity "
            "(`vllm:kv_offload_config_info`) and store/load traffic, not occupancy."
        )

    st.subheader("Routing")
    routes = cached.frame(path, "routing", tr)
    left, right = st.columns([2, 1])
    with left:
        widgets.chart(charts.routing_chart(routes, all_pods), notes, missing, ("epp_scheduler_attempts",))
    with right:
        widgets.chart(
            charts.routing_total_chart(routes, all_pods), None, missing, ("epp_scheduler_attempts",)
        )


body()
