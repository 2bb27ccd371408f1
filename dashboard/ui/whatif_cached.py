"""Streamlit caches for the What-if page: one read per trace, one curve per trace and policy, one
result per scenario.

Each scenario is cached on its own, so changing one scenario replays only that one, and the
progress bar moves once per scenario. The trace's version (file size and time, or import time)
is part of every key, so a changed file is read again.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from dashboard.core.scenarios import Scenario
from dashboard.core.types import MissRatioCurve, SampledCurve, Trace
from dashboard.services import compare, whatif
from dashboard.services.policy_curves import SpotCheck, spot_checks
from dashboard.ui import cached


@st.cache_resource(max_entries=4, show_spinner="Reading the trace …")
def trace(key: str, fmt: str, version: str) -> Trace:
    """The trace key names, read once per version (ValueError names the user's file)."""
    return whatif.read_source(cached.get_store(), whatif.source(key), fmt)


@st.cache_data(max_entries=8, show_spinner=False)
def curve(key: str, fmt: str, version: str) -> MissRatioCurve:
    """The trace's exact LRU curve."""
    return compare.trace_curve(trace(key, fmt, version))


@st.cache_data(max_entries=16, show_spinner=False)
def policy_curve(key: str, fmt: str, version: str, policy: str, exact: bool) -> SampledCurve:
    """A policy's curve at the LRU curve's capacities (approximate on a large trace unless exact)."""
    return compare.policy_curve(trace(key, fmt, version), policy, curve(key, fmt, version), exact)


@st.cache_data(max_entries=64, show_spinner=False)
def spot_check(key: str, fmt: str, version: str, policy: str, capacity: int) -> SpotCheck:
    """policy's sampled curve against an exact replay of one cache of capacity blocks."""
    sampled = policy_curve(key, fmt, version, policy, False)
    return spot_checks(trace(key, fmt, version), [sampled], [capacity])[0]


@st.cache_data(max_entries=64, show_spinner=False)
def scenario_result(key: str, fmt: str, version: str, scenario: Scenario) -> compare.ScenarioResult:
    """One scenario replayed on the trace (errors are not cached: they raise)."""
    return compare.run_scenario(trace(key, fmt, version), scenario)


def trace_version(key: str) -> str:
    """The cache key of the trace's current content."""
    return whatif.version(cached.get_store(), whatif.source(key))


def comparison(
    key: str,
    fmt: str,
    scenarios: tuple[Scenario, ...],
    on_progress: Callable[[int, int, str], None] | None = None,
    exact_curves: bool = False,
) -> tuple[compare.Comparison, dict[str, str]]:
    """The scenarios compared on the trace, through the caches; errors by scenario name (S1…).

    on_progress(done, total, what) before each scenario and each other policy's curve, and with
    what == "" at the end.
    """
    version = trace_version(key)
    t = trace(key, fmt, version)
    results, names, errors = [], [], {}
    policies = compare.curve_policies(scenarios)
    total = len(scenarios) + len(policies)
    for i, scenario in enumerate(scenarios):
        name = compare.scenario_name(i)
        if on_progress is not None:
            on_progress(i, total, name)
        try:
            results.append(scenario_result(key, fmt, version, scenario))
            names.append(name)
        except ValueError as exc:
            errors[name] = str(exc)
    curves = []
    for i, policy in enumerate(compare.curve_policies([r.scenario for r in results])):
        if on_progress is not None:
            on_progress(len(scenarios) + i, total, f"{policy}'s miss-ratio curve")
        curves.append(policy_curve(key, fmt, version, policy, exact_curves))
    checks = tuple(
        spot_check(key, fmt, version, c.policy, capacity)
        for c in curves
        if not c.is_exact
        for capacity in compare.marked_capacities(results)
    )
    if on_progress is not None:
        on_progress(total, total, "")
    label = whatif.source(key).label
    lru = curve(key, fmt, version)
    return compare.assemble(t, label, lru, results, names, tuple(curves), checks), errors
