"""Issue 13.1/13.4: the Overview for the cluster and for one pod, every headline and chart number
checked against `kvscope query` on the same store; ranges that agree; a reversed range refused."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import math
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.cli import main
from dashboard.core.selection import RangeError, all_data_range, custom_range, time_range
from dashboard.core.units import format_duration
from tests.ui.apptest import APP

POD = "vllm-0"


def kvscope_query(db: Path, name: str, **params) -> list[dict]:
    """The real CLI, as a user would run it (its entry point, in this process), as JSON rows."""
    # NOTE: in this process, not a new one each: a Python start costs more than the query, and
    # the command's code path is the same (tests/cli holds the process-level behaviour).
    args = ["query", name, "--db", str(db), "--format", "json"]
    for key, value in params.items():
        args += ["--param", f"{key}={value}"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    return json.loads(out.getvalue())


def iso(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M:%S")


def render(monkeypatch, db: Path, pods: list[str]) -> AppTest:
    monkeypatch.setenv("KVSCOPE_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    if pods:
        at.sidebar.multiselect(key="sidebar_pods").set_value(pods).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


SECTIONS = ("Hit rates & TTFT", "What explains the hit rate", "KV tiers & routing")


def figures(at: AppTest) -> dict[str, dict]:
    """Every chart's figure JSON by its title, visiting each section of the page as a user would."""
    out = {}
    for section in SECTIONS:
        at.radio(key="overview_section").set_value(section).run()
        assert not at.exception, [e.value for e in at.exception]
        for chart in at.get("plotly_chart"):
            fig = json.loads(chart.proto.spec)
            out[fig["layout"]["title"]["text"]] = fig
    return out


def by_title(figs: dict[str, dict], start: str) -> dict:
    matches = [f for t, f in figs.items() if t.startswith(start)]
    assert len(matches) == 1, (start, list(figs))
    return matches[0]


def trace(fig: dict, name: str) -> dict:
    matches = [t for t in fig["data"] if t.get("name") == name]
    assert matches, (name, [t.get("name") for t in fig["data"]])
    return matches[0]


def values(array) -> list:
    """A figure array as a list (Plotly ships numeric arrays as base64 'bdata')."""
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.dtype(array["dtype"])).tolist()
    return list(array)


def finite(array) -> list[float]:
    return [v for v in values(array) if v is not None and not math.isnan(v)]


@pytest.mark.parametrize("pods", [[], [POD]], ids=["cluster", POD])
def test_every_number_follows_the_pod_filter(monkeypatch, sample_db, pods):
    at = render(monkeypatch, sample_db, pods)
    bounds_first, bounds_last = _bounds(sample_db)
    tr = all_data_range(bounds_first, bounds_last)  # the default range: all data
    filt = {"pod": POD} if pods else {}
    whole = {"start": iso(tr.end), "end": iso(tr.end), "step": tr.length_s, **filt}
    grid = {"start": iso(tr.start), "end": iso(tr.end), "step": tr.step_s, **filt}
    pods_param = {"pods": POD} if pods else {}

    # headline numbers
    rates = kvscope_query(sample_db, "hit_rate", **whole)
    gpu = next(r for r in rates if r["tier"] == "gpu" and r["pod"] == (POD if pods else "*"))
    ttft = {r["q"]: r for r in kvscope_query(sample_db, "ttft_quantiles", q="0.5,0.99", **whole)}
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["GPU prefix hit rate"] == f"{gpu['hit_rate'] * 100:.1f}%"
    assert metrics["TTFT p50"] == format_duration(ttft[0.5]["ttft_s"])
    assert metrics["TTFT p99"] == format_duration(ttft[0.99]["ttft_s"])
    assert metrics["Requests"] == f"{ttft[0.5]['num_requests']:,.0f}"
    scope = POD if pods else "cluster"
    assert any(c.value.startswith(f"{scope} · {tr.caption}") for c in at.caption)

    figs = figures(at)
    # hit rate over time: the bold total line equals the query's per-window rate
    fig = by_title(figs, "Prefix-cache hit rate, HBM")
    total = trace(fig, "selected pods" if pods else "cluster")
    want = [
        r["hit_rate"] * 100
        for r in kvscope_query(sample_db, "hit_rate", **grid)
        if r["tier"] == "gpu" and r["pod"] == (POD if pods else "*")
    ]
    assert finite(total["y"]) == pytest.approx(want)
    if pods:
        assert {t["name"] for t in fig["data"]} == {POD, "selected pods"}

    # TTFT p50 per window
    fig = by_title(figs, "Time to first token")
    want = [
        r["ttft_s"]
        for r in kvscope_query(sample_db, "ttft_quantiles", q="0.5,0.9,0.99", **grid)
        if r["q"] == 0.5 and r["ttft_s"] is not None
    ]
    assert finite(trace(fig, "p50")["y"]) == pytest.approx(want)

    # TTFT distribution over the range
    fig = by_title(figs, "TTFT distribution")
    want = [
        r["num_requests"]
        for r in kvscope_query(
            sample_db, "overview_ttft_distribution", start=iso(tr.start), end=iso(tr.end), **filt
        )
        if r["upper_s"] is not None and r["upper_s"] != float("inf")
    ]
    bars = finite(fig["data"][0]["y"])
    assert bars == pytest.approx(want)
    assert sum(bars) <= ttft[0.5]["num_requests"]

    # KV usage: one line per selected pod
    fig = by_title(figs, "HBM KV held")
    names = {t["name"] for t in fig["data"]}
    assert names == {POD} if pods else len(names) > 1

    # offload traffic: the selection's total per window
    fig = by_title(figs, "Offload traffic")
    assert f"{scope} total" in fig["layout"]["title"]["text"]
    rows = kvscope_query(
        sample_db,
        "overview_offload_traffic",
        start=iso(tr.start),
        end=iso(tr.end),
        step=tr.step_s,
        **pods_param,
    )
    store_total = sum(r["bytes_per_s"] for r in rows if r["direction"] == "store") / 1e6
    assert sum(finite(trace(fig, "store GPU→CPU")["y"])) == pytest.approx(store_total)

    # capacity: the selected pods only
    fig = by_title(figs, "Configured KV capacity")
    cap = kvscope_query(sample_db, "overview_capacity", **pods_param)
    assert values(fig["data"][0]["x"]) == [r["pod"] for r in cap]

    # routing is the router's view of the whole cluster and says so
    fig = by_title(figs, "EPP routing share")
    assert "cluster-wide" in fig["layout"]["title"]["text"]
    assert len(fig["data"]) > 1


def _bounds(db: Path) -> tuple[datetime, datetime]:
    row = kvscope_query(db, "time_bounds")[0]
    return datetime.fromisoformat(row["first_ts"]), datetime.fromisoformat(row["last_ts"])


def test_presets_all_data_and_custom_ranges_share_one_grid():
    last = datetime(2026, 11, 30, 5, 59, 45)
    first = datetime(2026, 11, 30, 0, 0, 15)
    six_h = time_range(last, 6 * 3600)
    everything = all_data_range(first, last)
    assert (six_h.start, six_h.end, six_h.step_s) == (everything.start, everything.end, everything.step_s)
    assert everything.end == datetime(2026, 11, 30, 6, 0) and everything.start == datetime(2026, 11, 30)
    custom = custom_range(first, last)
    assert custom == everything
    day = time_range(last, 86400)
    assert day.caption.startswith("2026-11-29 06:00 → 2026-11-30 06:00 UTC")
    days = custom_range(datetime(2026, 11, 27, 12), datetime(2026, 11, 30, 3))
    for tr in (six_h, day, days):
        assert (tr.end - datetime(1970, 1, 1)).total_seconds() % tr.step_s == 0
        assert (tr.start - datetime(1970, 1, 1)).total_seconds() % tr.step_s == 0
    assert days.length_s >= (datetime(2026, 11, 30, 3) - datetime(2026, 11, 27, 12)).total_seconds()


def test_a_reversed_custom_range_is_refused_with_what_to_change(monkeypatch, sample_db):
    with pytest.raises(RangeError, match="set 'To' later than 'From'"):
        custom_range(datetime(2026, 11, 30, 5), datetime(2026, 11, 30, 4))
    at = render(monkeypatch, sample_db, [])
    at.sidebar.selectbox(key="sidebar_range").set_value("custom").run()
    to_day = at.sidebar.date_input(key="sidebar_to_day")
    at.sidebar.date_input(key="sidebar_from_day").set_value(to_day.value + timedelta(days=1)).run()
    assert not at.exception
    assert any("set 'To' later than 'From'" in e.value for e in at.error)
    assert not at.get("plotly_chart")
