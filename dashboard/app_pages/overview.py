"""Overview: hit rates by tier, TTFT, tier capacity and traffic, routing — with events marked.

One Selection (pods, range, window) from the sidebar feeds every panel; the findings and headline
numbers come first, then one section (ui/overview_sections.py) at a time.
"""

from __future__ import annotations

import streamlit as st

from dashboard.ui import drawn, export, widgets
from dashboard.ui import findings as findings_ui
from dashboard.ui.overview_sections import DEFAULT_SECTION, SECTIONS, Page, render_headline

st.header("Overview")
path, bounds, controls = widgets.page_context()
if isinstance(controls, str):
    st.error(f"Custom range refused: {controls}")
    st.stop()
if controls is None:
    widgets.no_data_message(path)
    st.stop()

section = st.radio(
    "Section",
    list(SECTIONS),
    horizontal=True,
    key="overview_section",
    bind="query-params",  # the URL holds the label: ?overview_section=KV+tiers+%26+routing
    label_visibility="collapsed",
)


@st.fragment(run_every=controls.refresh_s)
def body() -> None:
    """Everything that refreshes on its own when auto-refresh is on."""
    drawn.reset()
    p = Page(path, controls)
    p.notes = findings_ui.render_findings(path, p.sel.time_range, p.notes)  # findings join the markers
    render_headline(p)
    shown = section or DEFAULT_SECTION
    SECTIONS[shown](p)
    caption = export.caption_text(f"{p.sel.scope} · {shown}", p.sel.time_range.caption, f"store {path}")
    export.export_picker(drawn.figures(), caption, key="overview_export")


body()
