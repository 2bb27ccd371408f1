"""Issue 13.3: every Overview chart in a real Chromium, with and without the pod filter —
a screenshot of each, no two tick labels of one axis overlapping, every axis titled, no error box,
and every event label above the plot, clear of the data, the title and the other labels."""

from __future__ import annotations

import time

from tests.ui.browser import CHART_CHECK_JS, IDLE_JS, QUIET_JS, wait_until_drawn

SECTIONS = ("Hit rates & TTFT", "What explains the hit rate", "KV tiers & routing")


SETTLED_JS = QUIET_JS + " && [...document.querySelectorAll('.gtitle')].map(t => t.textContent).join('|')"


def settle(page, timeout_s: float = 60) -> None:
    """Poll until the run is over, nothing stale is left and the chart titles hold still for 3 polls."""
    seen, still = None, 0
    deadline = time.monotonic() + timeout_s
    while still < 3:
        assert time.monotonic() < deadline, "the page did not settle"
        now = page.evaluate(SETTLED_JS)
        still = still + 1 if now and now == seen else 0
        seen = now
        page.wait_for_timeout(250)
    wait_until_drawn(page)


def open_section(page, section: str) -> None:
    """Click a section of the page as a user would (unless it is shown) and wait until its charts are drawn."""
    chosen = page.locator("[data-testid='stRadio'] label").filter(has_text=section).first
    if not chosen.locator("input").is_checked():
        chosen.click()
        # NOTE: the first section is the default, which the URL leaves out
        want = "null" if section == SECTIONS[0] else repr(section)
        page.wait_for_function(
            f"new URLSearchParams(location.search).get('overview_section') === {want}", timeout=30_000
        )
    settle(page)


ERRORS = "[data-testid='stException'], [data-testid='stAlertContentError']"


def pick_pod(page, pod: str) -> None:
    """Choose one pod in the sidebar's filter as a user would; the caption then names it."""
    picker = page.locator("[data-testid='stSidebar'] [data-testid='stMultiSelect'] input")
    picker.click()
    picker.fill(pod)
    picker.press("Enter")
    page.wait_for_function(f"document.body.innerText.includes('{pod} · ')", timeout=60_000)
    page.keyboard.press("Escape")


def walk_sections(page, artifacts_dir, name: str, pod: str | None) -> dict:
    """Open every section in turn: each chart's axis check and screenshot, the captions, the error boxes."""
    seen = {"charts": [], "captions": [], "errors": 0, "first": 0, "shots": 0}
    for section in SECTIONS:
        open_section(page, section)
        if pod:
            page.wait_for_function(
                f"[...document.querySelectorAll('.gtitle')].some(t => t.textContent.includes('{pod}'))"
                " || [...document.querySelectorAll('.gtitle')].every(t => t.textContent.includes('cluster'))",
                timeout=60_000,
            )
        # NOTE: poll until the run is over (no status widget) so no chart is replaced mid-check
        page.wait_for_function(IDLE_JS, timeout=60_000)
        seen["errors"] += page.locator(ERRORS).count()
        if section == SECTIONS[0]:
            seen["first"] = page.locator(".js-plotly-plot").count()
            if not pod:
                page.screenshot(path=str(artifacts_dir / "overview.png"), full_page=True)
        seen["charts"] += page.evaluate(CHART_CHECK_JS)
        for plot in page.locator(".js-plotly-plot").all():
            plot.screenshot(path=str(artifacts_dir / f"overview-{name}-chart{seen['shots']}.png"))
            seen["shots"] += 1
        seen["captions"] += page.locator("[data-testid='stCaptionContainer']").all_inner_texts()
    return seen


def test_every_chart_is_readable_for_the_cluster_and_for_one_pod_and_no_section_shows_an_error(
    browser, app_url, artifacts_dir
):
    # NOTE: one browser walks every section for the cluster, then again with the pod filter set, as
    # a user would go on; it also takes the full-page picture README shows.
    page = browser.new_page(viewport={"width": 1500, "height": 2600})
    page.goto(app_url, wait_until="domcontentloaded")
    page.wait_for_function(
        "document.querySelectorAll('.js-plotly-plot .main-svg').length >= 4", timeout=90_000
    )
    # NOTE: .streamlit/config.toml serves the app to viewers: no Deploy button beside the main menu
    assert page.locator("[data-testid='stMainMenu']").count() == 1
    assert page.locator("[data-testid='stAppDeployButton']").count() == 0
    cluster = walk_sections(page, artifacts_dir, "cluster", None)
    pick_pod(page, "vllm-0")
    one_pod = walk_sections(page, artifacts_dir, "vllm-0", "vllm-0")
    page.close()
    for seen in (cluster, one_pod):
        assert seen["first"] >= 4  # the first section: hit rates and TTFT
        assert seen["errors"] == 0
        assert len(seen["charts"]) >= 13
        assert sum(chart["labels"] for chart in seen["charts"]) >= 20  # the sample's events and findings
        for chart in seen["charts"]:
            assert chart["title"], chart
            assert not chart["clashes"], (chart["title"], chart["clashes"])
            for axis in chart["axes"]:
                assert axis["title"].strip(), (chart["title"], axis["kind"])
                assert axis["numTicks"] >= 1, (chart["title"], axis)
                assert not axis["overlaps"], (chart["title"], axis)
    assert (artifacts_dir / "overview.png").stat().st_size > 50_000, "screenshot is blank"
    assert any("vllm-0 ·" in c for c in one_pod["captions"]), one_pod["captions"]
    assert not any(c["title"].startswith("Offload traffic, cluster") for c in one_pod["charts"])
