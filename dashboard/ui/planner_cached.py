"""Streamlit caches for the Planner page: one LRU pass per trace, one plan per set of inputs, one
curve per trace and eviction policy."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from dashboard.core.types import SampledCurve
from dashboard.services import planner, planner_policies, planner_traces
from dashboard.services.profile_files import load_profiles
from dashboard.ui import cached


@st.cache_data(ttl=60, max_entries=4, show_spinner=False)
def trace_choices(path: str) -> list[str]:
    """The traces to choose from (path keys the cache to the store file)."""
    return planner_traces.trace_choices(cached.get_store())


@st.cache_resource(max_entries=4, show_spinner="Reading the trace and its LRU stack distances …")
def oracle(path: str, key: str) -> planner.HitOracle:
    """The trace's one-pass hit oracle (path: the store file, for stored traces)."""
    return planner.hit_oracle(planner_traces.load_planner_trace(cached.get_store(), key))


@st.cache_data(max_entries=32, show_spinner="Planning …")
def plan(path: str, key: str, req: planner.PlanRequest, profiles_digest: str) -> planner.Plan:
    """The plan for req on trace key (profiles_digest: which uploaded profiles were registered)."""
    o = oracle(path, key)
    return planner.plan(o.trace, req, o)


@st.cache_data(max_entries=16, show_spinner=False)
def policy_curve(path: str, key: str, policy: str, exact: bool) -> SampledCurve:
    """One cache's curve under policy on trace key (approximate for other policies on a large trace
    unless exact)."""
    return planner_policies.planner_curve(oracle(path, key).trace, policy, exact)


@st.cache_data(max_entries=16, show_spinner=False)
def readouts(
    path: str, key: str, req: planner.PlanRequest, profiles_digest: str, policies: tuple[str, ...]
) -> list[planner_policies.PolicyAtPlan]:
    """Each policy's token hit ratio at each answer's pooled capacity (exact replays)."""
    return planner_policies.at_plan(oracle(path, key).trace, plan(path, key, req, profiles_digest), policies)


def register_uploaded_profiles(data: bytes, filename: str) -> tuple[list[str], list[str]]:
    """Register the profiles of an uploaded TOML file; ValueError names the file, table and key."""
    folder = Path(tempfile.mkdtemp(prefix="kvscope-profiles-"))
    path = folder / Path(filename).name
    path.write_bytes(data)
    return load_profiles(path)
