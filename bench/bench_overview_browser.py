"""The Overview in a real Chromium (issue 13.2): first load, a time-range change and a pod filter
change, timed from navigation (or the input) to the last chart drawn, beside the server's time for
the same rerun and the SQL-only time of the same render (bench_overview's query set).

Each repetition starts a fresh `streamlit run dashboard/app.py` on the embedded sample, renders
the Overview once (warm-up: imports done, the default view's data cached), then measures in fresh
browser contexts. The time-range and pod changes pick selections the process has not rendered, so
their data is not cached (a cached repeat of the range change is reported apart).
"""

from __future__ import annotations

import base64
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import median

from bench.bench_overview import render_queries
from bench.browser_app import App, running_app
from bench.run import Result, timed_median
from tests.ui.browser import CHROMIUM_FLAGS

COMMAND = "python -m bench.run bench_overview_browser"
REPEATS = 5
CHROMIUM_ARGS = ("--headless=new", *CHROMIUM_FLAGS)  # the browser tests' flags: no background traffic
VIEWPORT = {"width": 1500, "height": 2600}  # every chart on screen: none waits to scroll into view
QUIET_MS = 750  # no chart changed for this long after the rerun finished: the last one is drawn
STEP_TIMEOUT_S = 90.0
POD = "vllm-0"
SIDEBAR = "[data-testid='stSidebar']"

# Installed before any page script: the time of the last user input, of the last change inside any
# Plotly chart and of the last change anywhere (performance.now(), ms since navigation start).
PROBE_JS = """
(() => {
  const kv = window.__kv = {lastInput: 0, lastPlot: 0, lastDom: 0, drawn: -1, drawnAt: 0};
  const inPlot = n => { const e = n && (n.nodeType === 1 ? n : n.parentElement);
                        return !!(e && e.closest('.js-plotly-plot')); };
  const hasPlot = n => n.nodeType === 1 && !!(n.matches('.js-plotly-plot') || n.querySelector('.js-plotly-plot'));
  new MutationObserver(ms => {
    kv.lastDom = performance.now();
    if (ms.some(m => inPlot(m.target) || [...m.addedNodes, ...m.removedNodes].some(hasPlot)))
      kv.lastPlot = performance.now();
  }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  for (const type of ['pointerdown', 'keydown'])
    addEventListener(type, () => { kv.lastInput = performance.now(); }, true);
})();
"""
# True once no run is shown, at least minCharts charts are drawn and none changed for quietMs.
SETTLED_JS = """
([minCharts, quietMs]) => {
  if (document.querySelector("[data-testid='stStatusWidget']")) return false;
  const kv = window.__kv, now = performance.now();
  const drawn = [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.querySelector('.main-svg')).length;
  if (drawn !== kv.drawn) { kv.drawn = drawn; kv.drawnAt = now; }
  return drawn >= minCharts && now - Math.max(kv.lastPlot, kv.drawnAt) >= quietMs;
}
"""


@dataclass(frozen=True)
class Timing:
    """One measured render: browser wall time, and where it went.

    browser_s = before_run_s (navigation → rerun request; 0 for an input) + server_s (rerun request
    → script_finished on the websocket) + the drawing left after the server finished.
    """

    browser_s: float
    before_run_s: float
    server_s: float
    script_s: float  # the page script's own run(s) in the server, wall
    script_cpu_s: float  # and CPU of the script thread
    sql_s: float  # SQL run inside the script (cache misses only)
    renderer_busy_s: float  # Chromium's main thread busy (CDP TaskDuration)
    renderer_js_s: float  # of which running JavaScript (ScriptDuration)
    renderer_layout_s: float  # and style and layout (RecalcStyleDuration + LayoutDuration)
    num_charts: int
    num_reruns: int
    num_bytes: int  # websocket bytes the server sent for it

    @property
    def after_run_s(self) -> float:
        """Browser time after the server's script_finished: drawing what it sent."""
        return self.browser_s - self.before_run_s - self.server_s


class Tab:
    """A fresh browser context on the app, with its probe and a clock on Streamlit's websocket."""

    def __init__(self, browser, app: App) -> None:
        self.app = app
        self.context = browser.new_context(viewport=VIEWPORT)
        self.context.set_default_timeout(STEP_TIMEOUT_S * 1000)
        self.context.add_init_script(PROBE_JS)
        self.page = self.context.new_page()
        self.sent: list[float] = []  # CDP timestamps (s) of rerun_script requests
        self.finished: list[float] = []  # and of script_finished messages
        self.navigated: list[float] = []  # and of document requests
        self.num_bytes = 0  # received on Streamlit's websocket
        self.cdp = self.context.new_cdp_session(self.page)
        self.cdp.on("Network.webSocketFrameSent", self._on_sent)
        self.cdp.on("Network.webSocketFrameReceived", self._on_received)
        self.cdp.on("Network.requestWillBeSent", self._on_request)
        self.cdp.send("Network.enable")
        self.cdp.send("Performance.enable")

    def _on_request(self, event: dict) -> None:
        if event.get("type") == "Document":
            self.navigated.append(event["timestamp"])

    def _busy_s(self) -> tuple[float, float, float]:
        """Chromium's main-thread seconds so far: busy, running JavaScript, in style and layout."""
        m = {x["name"]: x["value"] for x in self.cdp.send("Performance.getMetrics")["metrics"]}
        return m["TaskDuration"], m["ScriptDuration"], m["RecalcStyleDuration"] + m["LayoutDuration"]

    def _on_sent(self, event: dict) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        if (payload := _binary(event)) and BackMsg.FromString(payload).WhichOneof("type") == "rerun_script":
            self.sent.append(event["timestamp"])

    def _on_received(self, event: dict) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        payload = _binary(event)
        self.num_bytes += len(payload or b"")
        if payload and ForwardMsg.FromString(payload).WhichOneof("type") == "script_finished":
            self.finished.append(event["timestamp"])

    def measure(self, act: Callable[[], None], min_charts: int, from_input: bool) -> Timing:
        """Run act (a navigation or an input) and time it until the last chart is drawn."""
        mark, num_sent, num_bytes = self.app.mark(), len(self.sent), self.num_bytes
        busy_before = self._busy_s() if from_input else (0.0, 0.0, 0.0)  # NOTE: a navigation starts at 0
        act()
        started_ms = self.page.evaluate("window.__kv.lastInput") if from_input else 0.0
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while not (len(self.sent) > num_sent and self.finished and self.finished[-1] > self.sent[-1]):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no script_finished within {STEP_TIMEOUT_S:.0f} s")
            self.page.wait_for_timeout(20)
        self.page.wait_for_function(SETTLED_JS, arg=[min_charts, QUIET_MS], polling=50)
        errors = self.page.locator("[data-testid='stException']").all_inner_texts()
        if errors:
            raise RuntimeError(f"the Overview raised: {errors[0][:500]}")
        probe = self.page.evaluate("window.__kv")
        # NOTE: a change that redraws no chart ('all data' → 'last 6 h' on the 6 h sample) is done
        # when the page's last element changed
        drawn_ms = probe["lastPlot"] if probe["lastPlot"] > started_ms else probe["lastDom"]
        sql_s, script_s, script_cpu_s = self.app.since(mark)
        busy = self._busy_s()
        return Timing(
            browser_s=(drawn_ms - started_ms) / 1000,
            before_run_s=0.0 if from_input else self.sent[num_sent] - self.navigated[-1],
            server_s=self.finished[-1] - self.sent[num_sent],
            script_s=script_s,
            script_cpu_s=script_cpu_s,
            sql_s=sql_s,
            renderer_busy_s=busy[0] - busy_before[0],
            renderer_js_s=busy[1] - busy_before[1],
            renderer_layout_s=busy[2] - busy_before[2],
            num_charts=probe["drawn"],
            num_reruns=len(self.sent) - num_sent,
            num_bytes=self.num_bytes - num_bytes,
        )

    def load(self, min_charts: int = 1) -> Timing:
        """Open the app: timed from navigation start."""
        return self.measure(lambda: self.page.goto(self.app.url, wait_until="commit"), min_charts, False)

    def pick_range(self, label: str) -> Timing:
        """Choose a time-range preset in the sidebar: timed from the click on the option."""

        def act() -> None:
            self.page.locator(f"{SIDEBAR} [data-testid='stSelectbox']").filter(has_text="Time range").click()
            self.page.get_by_role("option", name=label, exact=True).click()

        return self.measure(act, 1, True)

    def pick_pod(self, pod: str) -> Timing:
        """Add pod to the sidebar's Pods filter: timed from the click on the option."""

        def act() -> None:
            self.page.locator(f"{SIDEBAR} [data-testid='stMultiSelect'] input").click()
            self.page.get_by_role("option", name=pod, exact=True).click()

        timing = self.measure(act, 1, True)
        self.page.keyboard.press("Escape")
        return timing

    def close(self) -> None:
        self.context.close()


def run() -> list[Result]:
    """Medians over REPEATS fresh app processes, each scenario beside the SQL of its render."""
    from playwright.sync_api import sync_playwright

    from dashboard.services.sample import load_sample

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise RuntimeError("bench_overview_browser needs Debian's chromium: apt-get install chromium")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "kvscope.duckdb"
        load_sample(db)
        sql = sql_baselines(db)
        rounds: list[dict[str, Timing]] = []
        load_before = os.getloadavg()[0]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=list(CHROMIUM_ARGS), timeout=60_000)
            try:
                for i in range(REPEATS):
                    with running_app(db, Path(tmp), i) as app:
                        rounds.append(measure_round(browser, app))
                    print(f"  round {i + 1}/{REPEATS}: " + _brief(rounds[-1]), file=sys.stderr, flush=True)
            finally:
                browser.close()
    return results(rounds, sql, (load_before, os.getloadavg()[0]))


def measure_round(browser, app: App) -> dict[str, Timing]:
    """One app process: warm-up, a returning browser's load, a new browser's first load, pod
    change, range change (uncached, then cached)."""
    out: dict[str, Timing] = {}
    tab = Tab(browser, app)
    out["warmup"] = tab.load()
    min_charts = out["warmup"].num_charts
    # NOTE: the same context again: its HTTP cache holds the app's scripts, as an operator's browser does
    out["returning_load"] = tab.load(min_charts)
    tab.close()
    tab = Tab(browser, app)
    out["first_load"] = tab.load(min_charts)
    out["pods"] = tab.pick_pod(POD)
    tab.close()
    tab = Tab(browser, app)
    tab.load(min_charts)
    tab.pick_range("last 6 h")
    out["range"] = tab.pick_range("last 1 h")
    out["range_cached_6h"] = tab.pick_range("last 6 h")
    out["range_cached_1h"] = tab.pick_range("last 1 h")
    tab.close()
    return out


def sql_baselines(db: Path) -> dict[str, float]:
    """bench_overview's uncached query set for each measured selection (median seconds)."""
    from dashboard.core.selection import Selection, all_data_range, time_range
    from dashboard.services import overview
    from dashboard.store.db import open_store

    store = open_store(db, read_only=True)
    try:
        b = overview.bounds(store)
        whole = all_data_range(b.first_ts, b.last_ts)  # the sidebar's default, "all data"
        cases = {
            "first_load": Selection(whole),
            "range": Selection(time_range(b.last_ts, 3600)),
            "pods": Selection(whole, (POD,)),
        }
        out = {
            name: timed_median(lambda s=s: render_queries(store, s), repeats=REPEATS)
            for name, s in cases.items()
        }
        return {**out, "returning_load": out["first_load"]}
    finally:
        store.close()


def results(
    rounds: list[dict[str, Timing]], sql: dict[str, float], load: tuple[float, float]
) -> list[Result]:
    """The rows for BENCHMARKS.md: browser and server medians, the SQL baseline beside each."""

    def med(key: str, field: str) -> float:
        return median(getattr(r[key], field) for r in rounds)

    def spread(key: str) -> str:
        values = sorted(r[key].browser_s for r in rounds)
        return (
            f"{values[0]:.2f}–{values[-1]:.2f} s over {len(values)} runs, {med(key, 'num_charts'):.0f} charts, "
            f"{med(key, 'num_bytes') / 1e6:.1f} MB sent; "
            f"medians: navigation → rerun request {med(key, 'before_run_s'):.2f} s, server "
            f"{med(key, 'server_s'):.2f} s (script {med(key, 'script_s'):.2f} s wall, "
            f"{med(key, 'script_cpu_s'):.2f} s CPU, of which SQL {med(key, 'sql_s'):.2f} s), drawing after it "
            f"{med(key, 'after_run_s'):.2f} s; Chromium main thread busy {med(key, 'renderer_busy_s'):.2f} s "
            f"(JavaScript {med(key, 'renderer_js_s'):.2f} s, style and layout {med(key, 'renderer_layout_s'):.2f} s)"
        )

    cached = [r[k] for r in rounds for k in ("range_cached_6h", "range_cached_1h")]
    rows = [
        # NOTE: issue 13's first-load target is with warm caches (the next row); a browser that never
        # opened kvscope first fetches and compiles Streamlit's and Plotly's scripts (~1.7 s here)
        (
            "first load in a new browser (nothing cached), navigation → last chart drawn",
            "first_load",
            "browser_s",
            "",
            None,
        ),
        ("first load, server time", "first_load", "server_s", "", None),
        (
            "first load in a browser that opened kvscope before (scripts cached), navigation → last chart drawn",
            "returning_load",
            "browser_s",
            "≤ 2 s",
            2.0,
        ),
        ("time range 6 h → 1 h, click → last chart drawn", "range", "browser_s", "≤ 1 s", 1.0),
        ("time range 6 h → 1 h, server time", "range", "server_s", "≤ 1 s", 1.0),
        (f"pod filter → {POD}, click → last chart drawn", "pods", "browser_s", "≤ 1 s", 1.0),
        (f"pod filter → {POD}, server time", "pods", "server_s", "≤ 1 s", 1.0),
    ]
    out = []
    for label, key, field, target, limit in rows:
        value = med(key, field)
        out.append(
            Result(
                f"Overview in Chromium: {label}",
                COMMAND,
                value,
                "s",
                "SQL of that render, uncached",
                sql[key],
                target,
                None if limit is None else value <= limit,
                spread(key) if field == "browser_s" else "",
            )
        )
    out.append(
        Result(
            "Overview in Chromium: time range change, data cached, click → last chart drawn",
            COMMAND,
            median(t.browser_s for t in cached),
            "s",
            notes=(
                f"server {median(t.server_s for t in cached):.2f} s, script {median(t.script_s for t in cached):.2f} s; "
                "6 h ↔ 1 h after both were rendered once; "
                f"{len(cached)} runs. The app: warm process (one render before), fresh browser context per load, "
                f"{VIEWPORT['width']}×{VIEWPORT['height']} viewport, headless Chromium without GPU on the same "
                "cores as the server; server time: rerun request sent → script_finished received, on the websocket; "
                "baseline: bench_overview's queries for the same selection, uncached, without a browser running; "
                f"1-min load average {load[0]:.1f} before, {load[1]:.1f} after"
            ),
        )
    )
    return out


def _binary(event: dict) -> bytes | None:
    """A CDP websocket frame's payload when it is binary (Streamlit's protobuf messages)."""
    frame = event["response"]
    return base64.b64decode(frame["payloadData"]) if frame.get("opcode") == 2 else None


def _brief(r: dict[str, Timing]) -> str:
    return ", ".join(
        f"{k} {t.browser_s:.2f} (server {t.server_s:.2f}, script {t.script_s:.2f}, SQL {t.sql_s:.2f}) s"
        for k, t in r.items()
    )
