"""Real-browser helpers: the system Chromium for Playwright, and `streamlit run` on a free port."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from dashboard.ui.export import system_chromium
from tests.shared_process import free_port

REPO = Path(__file__).resolve().parents[2]
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # NOTE: every tab in one renderer process: a new process per tab started V8 again and compiled
    # Streamlit's and Plotly's scripts again (the renderers took 25 against 32 CPU-s over the
    # browser tests). Each tab still has its own page and JavaScript heap.
    "--renderer-process-limit=1",
)


@contextmanager
def launched_chromium() -> Iterator[WarmChromium]:
    """The system Chromium under Playwright, on a profile of its own, closed and removed on exit."""
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="kvscope-chromium-")
    try:
        with sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(
                profile, executable_path=chromium(), args=list(CHROMIUM_FLAGS)
            )
            try:
                yield WarmChromium(context)
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class WarmChromium:
    """A browser whose every new page is a new visitor's (no cookies, no site storage) while its
    HTTP and compiled-script caches stay warm, as in a browser that has opened the app before.

    NOTE: a Playwright context per page is off the record, so each page load fetched and compiled
    Streamlit's and Plotly's scripts again: 0.85 of the 4.3 CPU-s an Overview load costs Chromium
    and the app together. Tests close their pages; closing the shared context would end the browser.
    """

    def __init__(self, context) -> None:
        self._context = context
        self._origins: set[str] = set()

    def new_page(self, viewport: dict[str, int]):
        """A new tab of the given size; the sites earlier tabs opened have forgotten them."""
        page = self._context.new_page()
        cdp = self._context.new_cdp_session(page)
        self._context.clear_cookies()
        for origin in self._origins:
            cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": SITE_STORAGE})
        cdp.detach()
        page.set_viewport_size(viewport)
        page.on("domcontentloaded", lambda loaded: self._origins.add(_origin(loaded.url)))
        return page


SITE_STORAGE = "local_storage,indexeddb,websql,service_workers,cache_storage,shared_storage"


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def chromium() -> str:
    """The system Chromium the tests drive, the one PNG export drives (dashboard/ui/export.py)."""
    path = system_chromium()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("no chromium in CI (.ci/run installs it: apt-get install chromium-headless-shell)")
        pytest.skip("headless browser test needs chromium: apt-get install chromium-headless-shell")
    return path


# The script run has ended by the app's own state flag (the status widget shows only 500 ms into a
# run, so its absence alone passed mid-run, with the previous run's charts still on the page) and no
# stale element from an earlier run is left.
IDLE_JS = (
    "document.querySelector('[data-testid=stApp]')?.dataset.testScriptState === 'notRunning' && "
    "!document.querySelector('[data-testid=stStatusWidget]')"
)
QUIET_JS = "(" + IDLE_JS + ") && !document.querySelector('[data-stale=true]')"
DRAWN_JS = (
    QUIET_JS + " && "
    "[...document.querySelectorAll('.js-plotly-plot')].every(p => p.querySelector('.main-svg .cartesianlayer, .main-svg .barlayer, .main-svg .treemaplayer, .main-svg .iciclelayer, .main-svg .pielayer'))"
)


# For each chart: its title; per axis its title, tick count and overlapping tick-label pairs; and what
# its event labels and axis titles run into (the plot, the title and subtitle, each other).
CHART_CHECK_JS = """
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
  // Event labels above the plot area, clear of each other and of the title and subtitle; axis titles too
  const box = e => e && e.getBoundingClientRect();
  const meet = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const area = box(plot.querySelector('.nsewdrag'));
  const heads = [plot.querySelector('.gtitle'), plot.querySelector('.gtitle-subtitle')].filter(e => e).map(box);
  const labels = [...plot.querySelectorAll('.annotation-text')].map(t => [t.textContent, box(t)]);
  const clashes = [];
  for (const kind of ['x', 'y']) {  // an axis title taller than its plot runs up over the subtitle
    const axisTitle = box(plot.querySelector(`.g-${kind}title text`));
    if (axisTitle && heads.some(h => meet(axisTitle, h))) clashes.push(`${kind} axis title on the title`);
  }
  labels.forEach(([text, r], i) => {
    if (area && r.bottom > area.top + 1) clashes.push(`${text} on the plot`);
    if (heads.some(h => meet(r, h))) clashes.push(`${text} on the title`);
    labels.slice(i + 1).forEach(([other, q]) => meet(r, q) && clashes.push(`${text} on ${other}`));
  });
  return {title, axes, labels: labels.length, clashes};
})
"""


def tick_clashes(charts: list[dict]) -> list:
    """(chart title, axis, overlapping pairs) of every axis whose tick labels sit on each other or
    that has no title, from page.evaluate(CHART_CHECK_JS)."""
    return [
        (chart["title"], axis["kind"], axis["overlaps"])
        for chart in charts
        for axis in chart["axes"]
        if axis["numTicks"] and (axis["overlaps"] or not axis["title"].strip())
    ]


def wait_until_drawn(page, timeout_ms: int = 60_000) -> None:
    """A readiness poll before a picture: the script run has ended and every chart has its plot layer."""
    page.wait_for_function(DRAWN_JS, timeout=timeout_ms)


def wait_for(url: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"streamlit did not answer at {url} within {timeout_s} s")


@contextmanager
def running_app(env_extra: dict[str, str], drop: tuple[str, ...] = ()) -> Iterator[str]:
    """`streamlit run dashboard/app.py` on a free 127.0.0.1 port with env_extra set; its base URL."""
    port = free_port()
    env = {k: v for k, v in {**os.environ, **env_extra}.items() if k not in drop}
    cmd = [sys.executable, "-m", "streamlit", "run", str(REPO / "dashboard" / "app.py"),
           "--server.address", "127.0.0.1", "--server.port", str(port), "--server.headless", "true"]  # fmt: skip
    # NOTE: no source file changes under a test; Streamlit's polling watcher stat()ed every module
    # of the app 5 times a second, 1.0-1.7 of the 6.0-6.7 CPU-s the apps took in the shared-links tests
    cmd += ["--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for(url + "/_stcore/health")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)
