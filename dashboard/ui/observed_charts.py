"""The Overview's "Observed vs replayed" section: the stored requests replayed through the observed
configuration, beside what the metrics observed (its own section, so it runs only when asked)."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.core import profiles
from dashboard.services import observed
from dashboard.services.overview import Selection
from dashboard.ui import cached, drawn
from dashboard.ui.charts import themed_figure
from dashboard.ui.markers import add_annotations
from dashboard.ui.theme import PLOTLY_CONFIG

DEFAULT_HARDWARE, DEFAULT_MODEL = "h100-sxm", "llama-3.1-8b"  # the sample's (sample_data/README.md)
COLORS = {
    "GPU hit rate": "#2563eb",
    "offload hit rate": "#d97706",
    "TTFT p50": "#16a34a",
    "TTFT p99": "#dc2626",
}


@st.cache_data(ttl=cached.DATA_TTL_S, max_entries=16, show_spinner=False)
def _compare(path: str, sel: Selection, newest: datetime | None, hardware: str, model: str):
    return observed.compare(cached._open(path), sel, hardware, model)


def comparison_chart(frame: pd.DataFrame, measures: tuple[str, ...], title: str, y_title: str) -> go.Figure:
    """Observed (solid) and replayed (dotted) lines per measure."""
    fig = themed_figure(title, y_title, height=340)
    for measure in measures:
        for source, dash in (("observed", "solid"), ("replayed", "dot")):
            rows = frame[(frame.measure == measure) & (frame.source == source)].sort_values("ts")
            fig.add_scatter(
                x=rows.ts,
                y=rows.value,
                mode="lines",
                name=f"{measure}, {source}",
                line={"color": COLORS[measure], "dash": dash, "width": 2},
            )
    return fig


def render_observed(path: str, sel: Selection, newest: datetime | None, notes: pd.DataFrame) -> None:
    """The two comparison charts, with the events and findings marked as on every time chart, the
    configuration and what the gaps mean."""
    st.subheader("Observed vs replayed")
    st.caption(
        "The stored requests replayed through the observed configuration: each pod's requests, "
        "as routed, through its own cache (about a second on the sample)."
    )
    left, right = st.columns(2)
    hw_names, model_names = sorted(profiles.HARDWARE), sorted(profiles.MODELS)
    hardware = left.selectbox(
        "Hardware",
        hw_names,
        index=hw_names.index(DEFAULT_HARDWARE),
        key="overview_replay_hw",
        bind="query-params",
    )
    model = right.selectbox(
        "Model",
        model_names,
        index=model_names.index(DEFAULT_MODEL),
        key="overview_replay_model",
        bind="query-params",
    )
    with st.spinner("Replaying the stored requests…"):
        result = _compare(path, sel, newest, hardware, model)
    if result is None:
        st.info("No stored requests with their pods for this range: import the requests beside the metrics.")
        return
    st.caption(f"Replayed: {result.config_text}. Solid: observed; dotted: replayed; same windows.")
    left, right = st.columns(2)
    hits = comparison_chart(
        result.frame,
        ("GPU hit rate", "offload hit rate"),
        f"Hit rate, {sel.scope} — token-weighted",
        "hit rate",
    )
    hits.update_yaxes(tickformat=".0%")
    ttft = comparison_chart(result.frame, ("TTFT p50", "TTFT p99"), f"TTFT, {sel.scope} — s", "TTFT (s)")
    for column, fig in ((left, hits), (right, ttft)):
        column.plotly_chart(
            drawn.record(add_annotations(fig, notes)), config=PLOTLY_CONFIG, theme=None, width="stretch"
        )
    for verdict in result.verdicts:
        st.markdown(f"- {verdict}")
