"""The charts a page drew in this run, by title, so one export control can offer any of them."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

_KEY = "ui_drawn_figures"


def reset() -> None:
    """Start a new run's list (call before the page draws its first chart)."""
    st.session_state[_KEY] = {}


def record(fig: go.Figure) -> go.Figure:
    """Remember fig under its title (untitled figures are not offered for export)."""
    title = fig.layout.title.text
    if title:
        st.session_state.setdefault(_KEY, {})[title] = fig
    return fig


def figures() -> dict[str, go.Figure]:
    """Every titled chart drawn since the last reset, in drawing order."""
    return dict(st.session_state.get(_KEY, {}))
