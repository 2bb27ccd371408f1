"""Overview panels for the metrics that explain a hit rate: one render function per panel."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.services.overview import Selection
from dashboard.ui import cached, widgets
from dashboard.ui.charts import themed_figure

SOURCE_NAMES = {
    "local_compute": "computed",
    "local_cache_hit": "local cache hit (GPU)",
    "external_kv_transfer": "external transfer (connector)",
}
SOURCE_COLORS = {
    "local_compute": "#dc2626",
    "local_cache_hit": "#2563eb",
    "external_kv_transfer": "#d97706",
    "device": "#2563eb",
    "host": "#d97706",
    "disk": "#475569",
    "p2p": "#7c3aed",
    "external_unspecified": "#9ca3af",
}


def _lines(title: str, y_title: str, frame: pd.DataFrame, by: str, value: str, names=None, stack=False):
    fig = themed_figure(title, y_title, height=340)
    for key, rows in frame.groupby(by, sort=True):
        fig.add_scatter(
            x=rows.ts,
            y=rows[value],
            mode="lines",
            name=(names or {}).get(key, key),
            stackgroup="stack" if stack else None,
            line={"width": 2, "color": SOURCE_COLORS.get(key)},
            connectgaps=False,
        )
    fig.update_yaxes(rangemode="tozero")
    return fig


def prompt_source_chart(frame: pd.DataFrame, kind: str, scope: str = "cluster") -> go.Figure:
    """Prompt tokens/s by source ('source') or cached tokens/s by tier ('tier'), stacked."""
    if kind == "source":
        title = f"Prompt tokens by source, {scope} — computed, local cache hit or transferred, tokens/s"
    else:
        title = f"Cached prompt tokens by tier, {scope} — the tier that supplied them, tokens/s"
    return _lines(title, "tokens/s", frame[frame.kind == kind], "source", "tokens_per_s", SOURCE_NAMES, True)


def render_prompt_sources(path: str, sel: Selection, newest: datetime | None, notes: pd.DataFrame) -> None:
    """Two charts: every prompt token by source, and the cached ones by the tier that supplied them."""
    frame = cached.frame(path, "prompt_sources", sel, newest)
    keys = ("prompt_tokens_by_source", "prompt_tokens_cached_by_source")
    missing = cached.missing(path, keys, newest)
    left, right = st.columns(2)
    with left:
        widgets.chart(
            prompt_source_chart(frame, "source", sel.scope), notes, missing, keys[:1], optional=True
        )
    with right:
        widgets.chart(prompt_source_chart(frame, "tier", sel.scope), notes, missing, keys[1:], optional=True)


def render_waiting(path: str, sel: Selection, newest: datetime | None, notes: pd.DataFrame) -> None:
    """Waiting requests by reason and preemptions per second."""
    frame = cached.frame(path, "waiting", sel, newest)
    keys = ("num_requests_waiting_by_reason", "num_preemptions")
    fig = _lines(
        f"Waiting requests and preemptions, {sel.scope} — waiting by reason (requests), preemptions per s",
        "requests · per s",
        frame,
        "series",
        "value",
    )
    widgets.chart(fig, notes, cached.missing(path, keys, newest), keys, optional=True)


def render_epp_predicted(path: str, sel: Selection, newest: datetime | None, notes: pd.DataFrame) -> None:
    """The EPP's predicted prefix hit rate beside the engines' delivered one (cluster-wide by nature)."""
    frame = cached.frame(path, "epp_predicted", sel, newest)
    fig = _lines(
        "EPP predicted vs delivered prefix hit rate, cluster-wide — token-weighted",
        "hit rate",
        frame,
        "series",
        "hit_rate",
    )
    fig.update_yaxes(tickformat=".0%")
    key = ("epp_prefix_predicted_cached_tokens",)
    widgets.chart(fig, notes, cached.missing(path, key, newest), key, optional=True)


def render_block_residency(path: str, sel: Selection, newest: datetime | None) -> None:
    """Block lifetime, idle time before eviction and reuse gap, with the verdict on capacity."""
    keys = ("kv_block_reuse_gap", "kv_block_idle_before_evict", "kv_block_lifetime")
    missing = cached.missing(path, keys, newest)
    if all(k in missing for k in keys):
        st.info(f"**GPU block residency**: not exported by this stack (needs {missing[keys[0]]}).")
        return
    r = cached.residency(path, sel, newest)
    cols = st.columns(3)
    for col, label, value in (
        (cols[0], "Block lifetime (mean)", r.lifetime_s),
        (cols[1], "Idle before eviction (mean)", r.idle_before_evict_s),
        (cols[2], "Reuse gap (mean)", r.reuse_gap_s),
    ):
        col.metric(label, "—" if value is None else f"{value:,.1f} s")
    (st.warning if r.early_eviction_s else st.caption)(r.verdict())


def render_connector_health(path: str, sel: Selection, newest: datetime | None, notes: pd.DataFrame) -> None:
    """The connector's lookup delays (s) beside its failure, skip, lookup, store and eviction rates (/s)."""
    frame = cached.frame(path, "connector_health", sel, newest)
    delay_keys = ("kv_offload_lookup_sync_delay", "kv_offload_lookup_async_delay")
    rate_keys = (
        "kv_offload_allocation_failures",
        "kv_offload_stores_skipped",
        "lmcache_lookup_tokens",
        "lmcache_stored_tokens",
        "lmcache_cpu_evictions",
    )
    missing = cached.missing(path, delay_keys + rate_keys, newest)
    left, right = st.columns(2)
    with left:
        fig = _lines(
            f"Offload lookup delay, {sel.scope} — mean per lookup, s",
            "s",
            frame[frame.unit == "s"],
            "series",
            "value",
        )
        widgets.chart(fig, notes, missing, delay_keys, optional=True)
    with right:
        rates = frame[frame.unit == "per_s"]
        fig = _lines(
            f"Connector events, {sel.scope} — failures, skips, LMCache lookups, stores, evictions per s",
            "per s",
            rates,
            "series",
            "value",
        )
        widgets.chart(fig, notes, missing, rate_keys, optional=True)
