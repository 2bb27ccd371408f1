"""How `--dist loadscope` hands the suite to the pytest-xdist workers (tests/conftest.py installs it)."""

from __future__ import annotations

import time

from xdist.scheduler import LoadScopeScheduling

from tests.live_stack import NUM_SCRAPES_NEEDED

BROWSER_UNIT = "tests/**/*_browser.py"
SECONDS_PER_TEST = 0.05  # a typical test here takes milliseconds to a tenth of a second
# Rough seconds, with three workers on a 2-core machine, of the units that take long for their number
# of tests (servers to start and wait on, a browser, subprocesses). Only the order of hand-out depends
# on these: a unit missing here is merely handed out later.
SLOW_UNITS = {
    BROWSER_UNIT: 100,
    "tests/services/test_window_cache.py": 18,
    "tests/store/test_doctor.py": 16,
    "tests/cli/test_sweep_ray.py": 16,
    "tests/services/test_range_totals.py": 15,
    "tests/sim/test_serve_sim.py": 14,
    "tests/ingest/test_secrets_and_messages.py": 13,
    "tests/ingest/test_victoriametrics.py": 13,
    "tests/ingest/test_collect_robustness.py": 12,
    "tests/engine/test_mrc_sampled.py": 12,
    "tests/sim/test_load_sample.py": 11,
    "tests/store/test_parquet_export.py": 11,
    "tests/ingest/test_query_limits.py": 11,
    "tests/services/test_findings_sample.py": 10,
    "tests/ingest/test_collector_survives.py": 10,
    "tests/ui/test_traces_page.py": 10,
    "tests/services/test_warmup.py": 9,
    "tests/services/test_overview_blocks.py": 9,
    "tests/ui/test_parquet_source_app.py": 9,
    "tests/ingest/test_tls_and_auth.py": 8,
    "tests/ingest/test_naming_variants.py": 7,
    "tests/test_packaging.py": 5,
    "tests/ui/test_live_app.py": 5,
    "tests/test_live_stack.py": 4,
}
# Units whose tests wait until the live stack's Prometheus holds NUM_SCRAPES_NEEDED one-second
# scrapes (tests/live_stack.py): handed out only once that much time has passed, or nothing else is left.
WAITS_FOR_LIVE_STACK = {
    "tests/ingest/test_collect_robustness.py",
    "tests/ingest/test_prometheus_agreement.py",
    "tests/ui/test_live_app.py",
}


# Units that mostly wait on servers, subprocesses and timers (the test process on CPU a sixth of their
# time or less): two of them beside the browser unit left both cores idle for seconds. One runs at a
# time while units that work are left to run beside it.
WAITS = {
    "tests/ingest/test_collect_robustness.py",
    "tests/ingest/test_collector_survives.py",
    "tests/sim/test_serve_sim.py",
    "tests/ingest/test_victoriametrics.py",
    "tests/ingest/test_secrets_and_messages.py",
    "tests/ingest/test_tls_and_auth.py",
    "tests/ingest/test_scrape_isolation.py",
    "tests/ui/test_live_app.py",
    "tests/test_live_stack.py",
}


# Modules that render PNGs through kaleido: on the browser tests' worker, one kaleido Chromium
# serves them all (one per worker that rendered a PNG cost ~4 CPU-s to start and warm up).
PNG_MODULES = {
    "tests/ui/test_png_renderer.py",
    "tests/ui/test_whatif_export.py",
    "tests/planner/test_export.py",
    "tests/cli/test_plan_cli.py",
}


def is_browser_test(nodeid: str) -> bool:
    """True for a test in a module that drives the real Chromium: a *_browser.py file, or one that
    renders PNGs through kaleido."""
    module = nodeid.split("::", 1)[0]
    return module.endswith("_browser.py") or module in PNG_MODULES


def estimated_seconds(unit: str, num_tests: int) -> float:
    """How long a unit is expected to take: its entry in SLOW_UNITS, else its tests at SECONDS_PER_TEST."""
    return SLOW_UNITS.get(unit, SECONDS_PER_TEST * num_tests)


class LongestFirst(LoadScopeScheduling):
    """Loadscope (a module's tests on one worker), with every *_browser.py module and every module
    that renders PNGs in one unit (is_browser_test), the units handed out longest first, those
    that wait for the live stack's history held back until it can be there, and a unit of WAITS
    held back while another worker holds one and a unit that works is left.

    NOTE: xdist hands out the modules with the most tests first, so the ones that take long for a
    few tests (servers to start and wait on, subprocesses) came last and ended the run with the
    other workers idle. The browser tests mostly wait, on Chromium drawing and the app's reruns: one
    after another on one worker, from the start, they overlap the rest of the suite. A unit handed
    out before the live stack had its scrapes kept its worker waiting while two cores had work.
    Two units of WAITS at once beside the browser tests left both cores idle for seconds: in four
    alternating runs, holding them apart took 132-145 s (median 136) against 138-152 s (median 148).
    """

    def __init__(self, config, log=None) -> None:
        super().__init__(config, log)
        self._started = time.monotonic()
        self._is_sorted = False

    def _split_scope(self, nodeid: str) -> str:
        return BROWSER_UNIT if is_browser_test(nodeid) else super()._split_scope(nodeid)

    def _assign_work_unit(self, node) -> None:
        if not self._is_sorted:  # NOTE: the queue is filled before the first hand-out
            for unit in sorted(self.workqueue, key=lambda u: estimated_seconds(u, len(self.workqueue[u]))):
                self.workqueue.move_to_end(unit, last=False)
            self._is_sorted = True
        held = WAITS if self._is_waiting_elsewhere(node) else set()
        if time.monotonic() - self._started < NUM_SCRAPES_NEEDED:
            held = held | WAITS_FOR_LIVE_STACK
        ready = next((u for u in self.workqueue if u not in held), None)
        if ready is not None:
            self.workqueue.move_to_end(ready, last=False)
        super()._assign_work_unit(node)

    def _is_waiting_elsewhere(self, node) -> bool:
        """True while another worker holds an unfinished unit of WAITS."""
        return any(
            unit in WAITS and not all(tests.values())
            for other, units in self.assigned_work.items()
            if other is not node
            for unit, tests in units.items()
        )
