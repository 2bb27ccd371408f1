"""The app under Streamlit's AppTest: its script, and a session opened at one page as a link opens it."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


def app_at(page: str | None, timeout_s: float, query: dict[str, str] | None = None) -> AppTest:
    """A new session of the app at page (app_pages/….py; the Overview when None), its URL holding
    query, run once.

    NOTE: straight to the page, as a link to it opens it: a first run of the Overview before
    switching rendered a page the test does not look at (tests/ui/test_pages.py still walks there).
    """
    at = AppTest.from_file(APP, default_timeout=timeout_s)
    at.query_params.update(query or {})
    if page is not None:
        at.switch_page(page)
    return at.run()
