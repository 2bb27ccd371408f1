"""The What-if page in a real headless Chromium: edits land in the URL, and the copied link reopens the same comparison."""

from __future__ import annotations

from tests.ui.browser import CHART_CHECK_JS, tick_clashes, wait_until_drawn

ERRORS = "[data-testid='stException'], [data-testid='stAlertContentError']"


def wait_for_comparison(page, num_charts: int = 6) -> None:
    page.wait_for_function(
        f"document.querySelectorAll('.js-plotly-plot .main-svg').length >= {num_charts}", timeout=180_000
    )
    page.wait_for_selector("[data-testid='stCode']", timeout=180_000)
    wait_until_drawn(page)  # NOTE: every chart drawn before reading or taking the picture


def command_lines(page) -> str:
    return page.locator("[data-testid='stCode']").last.inner_text()


def test_a_compared_set_of_scenarios_reopens_from_its_link_in_a_fresh_browser(
    browser, app_url, artifacts_dir
):
    page = browser.new_page(viewport={"width": 1500, "height": 4600})
    page.goto(app_url + "/whatif", wait_until="domcontentloaded")
    wait_for_comparison(page)
    page.locator("[data-testid='stRadio'] label").filter(has_text="3").click()
    page.wait_for_url("**whatif_n=3**", timeout=60_000)
    wait_for_comparison(page)
    page.locator(".st-key-whatif_s2_pods input").fill("4")  # Streamlit marks each keyed widget
    page.locator(".st-key-whatif_s1_cpu input").fill("12000")
    page.get_by_role("button", name="Run comparison").click()
    page.wait_for_url("**whatif_s2_pods=4**", timeout=60_000)
    page.wait_for_function(
        "[...document.querySelectorAll('[data-testid=stCode]')].some(e => e.innerText.includes('--pods 4'))",
        timeout=120_000,
    )
    wait_for_comparison(page)
    shared, shown = page.url, command_lines(page)
    num_errors = page.locator(ERRORS).count()
    charts = page.evaluate(CHART_CHECK_JS)
    page.screenshot(path=str(artifacts_dir / "whatif.png"), full_page=True)

    other = browser.new_page(viewport={"width": 1500, "height": 2400})  # a colleague's: no cookies or storage
    other.goto(shared, wait_until="domcontentloaded")
    wait_for_comparison(other)
    reopened = command_lines(other)
    reopened_pods = other.locator(".st-key-whatif_s2_pods input").input_value()
    num_reopened_errors = other.locator(ERRORS).count()
    page.close()
    other.close()
    assert "whatif_s1_cpu=12000" in shared and num_errors == 0 == num_reopened_errors
    assert (
        shown.count("kvscope replay") == 3
        and "--pods 4 --router prefix" in shown
        and "--cpu-blocks 12000" in shown
    )
    assert reopened == shown and reopened_pods == "4"
    assert len(charts) >= 6 and not tick_clashes(charts)  # every axis titled, no tick label on another
    assert (artifacts_dir / "whatif.png").stat().st_size > 100_000, "screenshot is blank"
