"""In a real browser, the sidebar shows the in-app collector's error without a reload, even with
auto-refresh off (issue 14, item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ingest.bad_servers import GOOD_PAGE, BadServer, send
from tests.ui.browser import running_app

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def live_app(tmp_path):
    """Streamlit with its own collector scraping one target the test can break."""
    server = BadServer({"/metrics": send(GOOD_PAGE)})
    live = {
        "KVSCOPE_DB": str(tmp_path / "live.duckdb"),
        "KVSCOPE_SCRAPE": f"pod-a={server.url('/metrics')}",
        "KVSCOPE_COLLECT_INTERVAL": "1s",
    }
    try:
        with running_app(live, drop=("KVSCOPE_PROMETHEUS_URL",)) as url:
            yield url, server
    finally:
        server.stop()


def test_the_sidebar_shows_a_collector_error_without_a_reload(browser, live_app):
    url, server = live_app
    page = browser.new_page(viewport={"width": 1400, "height": 1200})
    page.goto(url + "/?sidebar_refresh=off", wait_until="domcontentloaded")
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_text("Collector: last pull", exact=False).first.wait_for(timeout=60_000)
    assert sidebar.get_by_text("answered HTTP 500", exact=False).count() == 0
    server.set("/metrics", send("boom\n", 500, "text/plain"))  # the page is not reloaded after this
    error = sidebar.get_by_text("answered HTTP 500", exact=False).first
    error.wait_for(timeout=30_000)
    text = error.inner_text()
    page.close()
    assert f"scrape of pod-a at {server.url('/metrics')} answered HTTP 500" in text
