"""Issue 13.3: every Overview chart in a real Chromium, with and without the pod filter —
a screenshot of each, no two tick labels of one axis overlapping, every axis titled."""

from __future__ import annotations

import time

import pytest

from tests.ui.test_browser import (  # noqa: F401 (app_url: fixture)
    CHROMIUM_FLAGS,
    app_url,
    chromium,
    wait_until_drawn,
)

# For each chart: its title, and per axis the title text and any pair of overlapping tick labels.
AXIS_CHECK_JS = """
() => [...document.querySelectorAll('.js-plotly-plot')].map(plot => {
  const title = plot.querySelector('.gtitle')?.textContent ?? '';
  const axes = [];
  for (const kind of ['x', 'y']) {
    const ticks = [...plot.querySelectorAll(`.${kind}tick text`)]
      .map(t => t.getBoundingClientRect()).filter(r => r.width > 0);
    const overlaps = [];
    for (let i = 0; i < ticks.length; i++) for (let j = i + 1; j < ticks.length; j++) {
      const a = ticks[i], b = ticks[j];
      if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
        overlaps.push([i, j]);
    }
    const axisTitle = plot.querySelector(`.g-${kind}title`)?.textContent ?? '';
    axes.push({kind, title: axisTitle, numTicks: ticks.length, overlaps});
  }
  return {title, axes};
})
"""


SECTIONS = ("Hit rates & TTFT", "What explains the hit rate", "KV tiers & routing")
IDLE_JS = "!document.querySelector(\"[data-testid='stStatusWidget']\")"


SETTLED_JS = (
    "(" + IDLE_JS + ") && !document.querySelector('[data-stale=\"true\"]') && "
    "[...document.querySelectorAll('.gtitle')].map(t => t.textContent).join('|')"
)


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
    """Click a section of the page as a user would and wait until its charts are drawn."""
    if section != SECTIONS[0]:  # the first is the default: shown already, and not in the URL
        page.locator("[data-testid='stRadio'] label").filter(has_text=section).first.click()
        page.wait_for_function(
            f"new URLSearchParams(location.search).get('overview_section') === {section!r}", timeout=30_000
        )
    settle(page)


@pytest.mark.parametrize("pod", [None, "vllm-0"], ids=["cluster", "vllm-0"])
def test_every_chart_is_readable(app_url, artifacts_dir, pod):  # noqa: F811
    from playwright.sync_api import sync_playwright

    name = pod or "cluster"
    charts, caption, shot = [], [], 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), args=list(CHROMIUM_FLAGS))
        page = browser.new_page(viewport={"width": 1500, "height": 2600})
        page.goto(app_url, wait_until="domcontentloaded")
        page.wait_for_function(
            "document.querySelectorAll('.js-plotly-plot .main-svg').length >= 4", timeout=90_000
        )
        if pod:  # pick the pod as a user would; the caption and chart titles then name it
            picker = page.locator("[data-testid='stSidebar'] [data-testid='stMultiSelect'] input")
            picker.click()
            picker.fill(pod)
            picker.press("Enter")
            page.wait_for_function("document.body.innerText.includes('vllm-0 · ')", timeout=60_000)
            page.keyboard.press("Escape")
        for section in SECTIONS:
            open_section(page, section)
            if pod:
                page.wait_for_function(
                    "[...document.querySelectorAll('.gtitle')].some(t => t.textContent.includes('vllm-0'))"
                    " || [...document.querySelectorAll('.gtitle')].every(t => t.textContent.includes('cluster'))",
                    timeout=60_000,
                )
            # NOTE: poll until the run is over (no status widget) so no chart is replaced mid-check
            page.wait_for_function(IDLE_JS, timeout=60_000)
            charts += page.evaluate(AXIS_CHECK_JS)
            for plot in page.locator(".js-plotly-plot").all():
                plot.screenshot(path=str(artifacts_dir / f"overview-{name}-chart{shot}.png"))
                shot += 1
            caption += page.locator("[data-testid='stCaptionContainer']").all_inner_texts()
        browser.close()
    assert len(charts) >= 13
    for chart in charts:
        assert chart["title"], chart
        for axis in chart["axes"]:
            assert axis["title"].strip(), (chart["title"], axis["kind"])
            assert axis["numTicks"] >= 1, (chart["title"], axis)
            assert not axis["overlaps"], (chart["title"], axis)
    if pod:
        assert any("vllm-0 ·" in c for c in caption), caption
        assert not any(c["title"].startswith("Offload traffic, cluster") for c in charts)
