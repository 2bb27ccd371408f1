"""Issue 13.3: every Overview chart in a real Chromium, with and without the pod filter —
a screenshot of each, no two tick labels of one axis overlapping, every axis titled."""

from __future__ import annotations

import pytest

from tests.ui.test_browser import CHROMIUM_FLAGS, app_url, chromium  # noqa: F401 (app_url: fixture)

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


@pytest.mark.parametrize("pod", [None, "vllm-0"], ids=["cluster", "vllm-0"])
def test_every_chart_is_readable(app_url, artifacts_dir, pod):  # noqa: F811
    from playwright.sync_api import sync_playwright

    name = pod or "cluster"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), args=list(CHROMIUM_FLAGS))
        page = browser.new_page(viewport={"width": 1500, "height": 2600})
        page.goto(app_url, wait_until="domcontentloaded")
        page.wait_for_function(
            "document.querySelectorAll('.js-plotly-plot .main-svg').length >= 9", timeout=90_000
        )
        if pod:  # pick the pod as a user would; the caption and chart titles then name it
            page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length >= 9")
            picker = page.locator("[data-testid='stSidebar'] [data-testid='stMultiSelect'] input")
            picker.click()
            picker.fill(pod)
            picker.press("Enter")
            page.wait_for_function("document.body.innerText.includes('vllm-0 · ')", timeout=60_000)
            page.wait_for_function(
                "[...document.querySelectorAll('.gtitle')].some(t => t.textContent.includes('vllm-0'))",
                timeout=60_000,
            )
        page.wait_for_function(
            "[...document.querySelectorAll('.js-plotly-plot')].every(p => p.querySelector('.gtitle'))",
            timeout=30_000,
        )
        if pod:
            page.keyboard.press("Escape")
        # NOTE: poll until the run is over (no status widget) so no chart is replaced mid-check
        page.wait_for_function("!document.querySelector(\"[data-testid='stStatusWidget']\")", timeout=60_000)
        charts = page.evaluate(AXIS_CHECK_JS)
        for i, plot in enumerate(page.locator(".js-plotly-plot").all()):
            plot.screenshot(path=str(artifacts_dir / f"overview-{name}-chart{i}.png"))
        caption = page.locator("[data-testid='stCaptionContainer']").all_inner_texts()
        browser.close()
    assert len(charts) >= 9
    for chart in charts:
        assert chart["title"], chart
        for axis in chart["axes"]:
            assert axis["title"].strip(), (chart["title"], axis["kind"])
            assert axis["numTicks"] >= 1, (chart["title"], axis)
            assert not axis["overlaps"], (chart["title"], axis)
    if pod:
        assert any("vllm-0 ·" in c for c in caption), caption
        assert not any(c["title"].startswith("Offload traffic, cluster") for c in charts)
