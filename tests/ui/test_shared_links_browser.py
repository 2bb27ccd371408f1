"""Issue 12.7/12.8: a copied link reopens the same view in a fresh browser — the Overview with its
pod, range and section, and the Planner with its inputs — and each page leaves a screenshot."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.ui.test_overview_browser import settle

VIEWPORT = {"width": 1500, "height": 2400}


def view(page) -> dict:
    """What a reader sees: captions, headline values, chart titles and the inputs' values."""
    return {
        "captions": page.locator("[data-testid='stCaptionContainer']").all_inner_texts(),
        "metrics": page.locator("[data-testid='stMetricValue']").all_inner_texts(),
        "charts": page.locator(".js-plotly-plot .gtitle").all_inner_texts(),
        "inputs": [i.input_value() for i in page.locator("[data-testid='stNumberInput'] input").all()],
    }


LEAVE_TRACES_JS = "localStorage.setItem('left-behind', '1'); document.cookie = 'left-behind=1'"
NO_TRACES_JS = "localStorage.getItem('left-behind') === null && !document.cookie.includes('left-behind')"


def reopened(browser, url: str, shot, sender) -> dict:
    """The view a colleague gets from the link: a new tab with none of the sender's cookies, site
    storage or session (the sender's page leaves a cookie and a stored item that must not be seen)."""
    sender.evaluate(LEAVE_TRACES_JS)
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(url, wait_until="domcontentloaded")
    assert page.evaluate(NO_TRACES_JS), "the new tab sees the sender's cookie or stored item"
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=90_000)
    settle(page)
    page.screenshot(path=str(shot), full_page=True)
    seen = view(page)
    page.close()
    return seen


def test_an_overview_link_reopens_the_same_pod_range_and_section(browser, app_url, artifacts_dir):
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(app_url, wait_until="domcontentloaded")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=90_000)
    picker = page.locator("[data-testid='stSidebar'] [data-testid='stMultiSelect'] input")
    picker.click()
    picker.fill("vllm-0")
    picker.press("Enter")
    page.keyboard.press("Escape")
    page.wait_for_function("location.search.includes('sidebar_pods=vllm-0')", timeout=60_000)
    page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").filter(
        has_text="Time range"
    ).click()
    page.get_by_role("option", name="last 1 h").click()
    page.wait_for_function("location.search.includes('sidebar_range=')", timeout=60_000)
    page.locator("[data-testid='stRadio'] label").filter(has_text="KV tiers & routing").first.click()
    page.wait_for_function("location.search.includes('overview_section=')", timeout=60_000)
    settle(page)
    shared, mine = page.url, view(page)
    # Every page's icon in the sidebar is a Material icon, drawn by a font Streamlit serves itself
    # (emoji showed empty boxes on a machine without a colour-emoji font, like this one)
    nav = page.locator("[data-testid='stSidebarNav'] a")
    assert nav.count() == 4 == nav.locator("[data-testid='stIconMaterial']").count()
    theirs = reopened(browser, shared, artifacts_dir / "overview-link.png", page)
    page.close()
    params = parse_qs(urlsplit(shared).query)
    assert params["sidebar_pods"] == ["vllm-0"] and params["sidebar_range"] == ["last 1 h"]
    assert params["overview_section"] == ["KV tiers & routing"]
    assert any(c.startswith("vllm-0 · ") for c in mine["captions"])
    assert theirs == mine


def test_a_planner_link_reopens_the_same_plan(browser, app_url, artifacts_dir):
    # NOTE: it opens a link that already sets an input, so it also checks what the Planner's own
    # browser test checked (a URL sets the inputs, a changed input lands in the URL) on one app.
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(app_url + "/planner?planner_price=3.5", wait_until="domcontentloaded")
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=120_000)
    price = page.get_by_label("$ per GPU-hour", exact=True)
    linked_price = price.input_value()
    price.fill("7.25")
    price.press("Enter")
    page.wait_for_url("**planner_price=7.25**", timeout=60_000)
    settle(page)
    shared, mine = page.url, view(page)
    # Every page's icon in the sidebar is a Material icon, drawn by a font Streamlit serves itself
    # (emoji showed empty boxes on a machine without a colour-emoji font, like this one)
    nav = page.locator("[data-testid='stSidebarNav'] a")
    assert nav.count() == 4 == nav.locator("[data-testid='stIconMaterial']").count()
    num_errors = page.locator("[data-testid='stException'], [data-testid='stAlertContentError']").count()
    page.screenshot(path=str(artifacts_dir / "planner-shared.png"), full_page=True)
    theirs = reopened(browser, shared, artifacts_dir / "planner-link.png", page)
    page.close()
    assert linked_price == "3.50"
    assert "7.25" in mine["inputs"] and num_errors == 0
    assert theirs == mine
