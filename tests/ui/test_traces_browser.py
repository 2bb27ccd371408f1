"""The Traces page in a real headless Chromium: choosing a trace puts it in the URL, and the URL reopens it."""

from __future__ import annotations

import pytest

from tests.ui.browser import CHART_CHECK_JS, running_app, tick_clashes, wait_until_drawn
from tests.ui.test_traces_page import SAMPLE, build_two_traces


@pytest.fixture
def traces_url(tmp_path):
    with running_app({"KVSCOPE_DB": str(build_two_traces(tmp_path))}) as url:
        yield url + "/traces"


def requests_metric(page) -> str:
    metric = page.locator("[data-testid='stMetric']").filter(has_text="Requests").first
    return metric.locator("[data-testid='stMetricValue']").inner_text()


def test_choosing_a_trace_writes_it_into_the_url_and_the_url_reopens_it(browser, traces_url, artifacts_dir):
    page = browser.new_page(viewport={"width": 1500, "height": 2400})
    page.goto(traces_url, wait_until="domcontentloaded")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    assert requests_metric(page) == "3"  # the newest trace, tiny
    page.locator("[data-testid='stSelectbox']").filter(has_text="Trace").first.click()
    page.get_by_role("option", name="sample").click()
    page.wait_for_function("location.search.includes('traces_name=sample')", timeout=30_000)
    want = requests_metric_value_of_sample()
    page.wait_for_function(  # the first metric is Requests
        f"document.querySelector('[data-testid=stMetricValue]')?.innerText === '{want}'", timeout=60_000
    )
    wait_until_drawn(page)
    shared = page.url
    num_errors = page.locator("[data-testid='stException'], [data-testid='stAlertContentError']").count()
    charts = page.evaluate(CHART_CHECK_JS)
    page.screenshot(path=str(artifacts_dir / "traces.png"), full_page=True)

    other = browser.new_page(viewport={"width": 1500, "height": 2400})
    other.goto(shared, wait_until="domcontentloaded")
    other.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    reopened = requests_metric(other)
    page.close()
    other.close()
    assert "traces_name=sample" in shared and num_errors == 0
    assert reopened == want
    assert len(charts) == 8, [c["title"] for c in charts]
    assert not tick_clashes(charts)  # every axis titled, no tick label on another


def requests_metric_value_of_sample() -> str:
    from dashboard.engine.readers import read_trace

    return f"{read_trace(SAMPLE).num_requests:,}"
