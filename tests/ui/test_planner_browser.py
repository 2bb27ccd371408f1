"""The Planner page in a real headless Chromium: a shared URL sets its inputs, a changed widget lands in the URL."""

from __future__ import annotations

import pytest

from tests.ui.test_browser import CHROMIUM_FLAGS, chromium, running_app


@pytest.fixture
def planner_url(tmp_path):
    # the page plans the embedded sample, so no store is needed
    with running_app({"KVSCOPE_DB": str(tmp_path / "absent.duckdb")}) as url:
        yield url + "/planner"


def test_planner_inputs_round_trip_through_the_url_in_a_real_browser(planner_url, artifacts_dir):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), args=list(CHROMIUM_FLAGS))
        page = browser.new_page(viewport={"width": 1500, "height": 2000})
        page.goto(planner_url + "?planner_price=3.5", wait_until="domcontentloaded")
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=120_000)
        price = page.get_by_label("$ per GPU-hour")
        shared_value = price.input_value()
        price.fill("7.25")
        price.press("Enter")
        page.wait_for_url("**planner_price=7.25**", timeout=60_000)
        num_errors = page.locator("[data-testid='stException'], [data-testid='stAlertContentError']").count()
        page.screenshot(path=str(artifacts_dir / "planner.png"), full_page=True)
        browser.close()
    assert shared_value == "3.50"
    assert num_errors == 0
