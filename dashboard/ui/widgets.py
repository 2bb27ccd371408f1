"""Small Streamlit pieces the pages share: context, empty-store guidance, KPIs, a chart slot."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.core.units import format_duration
from dashboard.services.overview import Bounds, Kpis, TimeRange
from dashboard.ui import drawn
from dashboard.ui.markers import add_annotations
from dashboard.ui.sidebar import Controls
from dashboard.ui.theme import PLOTLY_CONFIG

OVERVIEW_METRICS = (
    "prefix_cache_hits",
    "external_prefix_cache_hits",
    "ttft_seconds",
    "kv_cache_usage",
    "cache_config_info",
    "kv_offload_store_bytes",
    "kv_offload_transfer_bytes",
    "epp_scheduler_attempts",
    "lmcache_hit_tokens",
    "lmcache_cpu_usage",
)


def page_context() -> tuple[str, Bounds | None, Controls | str | None]:
    """Store path, bounds and sidebar controls set by app.py (a str: why the range is refused)."""
    return (
        st.session_state.get("app_store_path", ""),
        st.session_state.get("app_bounds"),
        st.session_state.get("app_selection"),
    )


def no_data_message(path: str) -> None:
    """Tell the user how to get data into an empty or missing store."""
    st.info(
        f"No metric samples in `{path}` yet.\n\n"
        "- `make run` loads the embedded sample cluster on first start;\n"
        f"- `kvscope load-sample --db {path}` loads it by hand;\n"
        f"- `kvscope collect --prometheus URL --db {path}` pulls a live cluster (see README)."
    )


def kpi_row(k: Kpis, tr: TimeRange, scope: str = "cluster") -> None:
    """Headline numbers over the selected range, for the selected pods."""
    cols = st.columns(5)
    cols[0].metric("GPU prefix hit rate", _pct(k.gpu_hit_rate), help="token-weighted, whole range")
    cols[1].metric(
        "Offload-tier hit rate", _pct(k.offload_hit_rate), help="of tokens queried from the connector"
    )
    cols[2].metric("TTFT p50", format_duration(k.ttft_p50_s))
    cols[3].metric("TTFT p99", format_duration(k.ttft_p99_s))
    cols[4].metric("Requests", "—" if k.num_requests is None else f"{k.num_requests:,.0f}")
    st.caption(f"{scope} · {tr.caption}")


def chart(
    fig: go.Figure,
    notes: pd.DataFrame | None,
    missing: dict[str, str],
    keys: tuple[str, ...],
    optional: bool = False,
) -> None:
    """Draw fig with event markers, or say what the stack would need to export its data.

    keys are alternatives (e.g. a metric and its older, differently shaped predecessor): the chart
    is drawn when the stack exports any of them. optional panels (another KV connector's) say so
    as a note rather than a warning: most stacks run one connector, not having the other is normal.
    """
    if all(k in missing for k in keys):
        title = fig.layout.title.text or "chart"
        (st.info if optional else st.warning)(
            f"**{title}**: not exported by this stack (needs {missing[keys[0]]})."
        )
        return
    if notes is not None and len(notes):
        add_annotations(fig, notes)
    st.plotly_chart(drawn.record(fig), theme=None, config=PLOTLY_CONFIG, width="stretch")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def skipped_note(kpis: Kpis) -> None:
    """Say what the numbers left out: non-finite samples and non-monotone histogram buckets."""
    parts = []
    if kpis.num_skipped_samples:
        parts.append(f"{kpis.num_skipped_samples:,} NaN/±Inf samples skipped in the hit-rate and TTFT math")
    if kpis.num_fixed_buckets:
        parts.append(f"{kpis.num_fixed_buckets:,} TTFT buckets below a lower bucket read as monotone")
    if parts:
        st.warning("; ".join(parts) + " (the exporter sent them; see docs/live.md).")
