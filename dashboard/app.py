"""kvscope's Streamlit entry point: the page router, the frame and the shared sidebar."""

from __future__ import annotations

import streamlit as st

from dashboard.ui import cached, heap, sidebar

PAGES_DIR = "app_pages"


def main() -> None:
    """Set up the frame, render the shared sidebar, run the selected page."""
    # NOTE: the page icons are Material icons, which ship with Streamlit; emoji need a colour-emoji
    # font, which servers and many Linux desktops lack (the sidebar showed empty boxes). The favicon
    # stays an emoji: a Material favicon is fetched from Google's font server, out of an offline
    # cluster's reach.
    st.set_page_config(page_title="kvscope", page_icon="🗂️", layout="wide")
    pages = [
        st.Page(f"{PAGES_DIR}/overview.py", title="Overview", icon=":material/monitoring:", default=True),
        st.Page(f"{PAGES_DIR}/whatif.py", title="What-if lab", icon=":material/science:"),
        st.Page(f"{PAGES_DIR}/traces.py", title="Traces", icon=":material/timeline:"),
        st.Page(f"{PAGES_DIR}/planner.py", title="Planner", icon=":material/architecture:"),
    ]
    nav = st.navigation(pages)
    st.sidebar.title("kvscope")
    st.sidebar.caption("Is prefix caching working, and what would make it work better?")
    store = cached.get_store()
    path = str(cached.store_path())
    bounds = cached.bounds(path) if store is not None else None
    sidebar.render_source(path, bounds)
    st.session_state["app_store_path"] = path
    st.session_state["app_bounds"] = bounds
    controls = sidebar.render(path, bounds) if bounds and not bounds.is_empty else None
    if controls is None:
        sidebar.collector_status(None)
    st.session_state["app_selection"] = controls
    try:
        nav.run()
    finally:  # NOTE: also when the page stops or reruns early (Streamlit's control-flow exceptions)
        heap.freeze_after_imports()


main()
