"""An auto-refresh tick asks the store only for the windows new samples can change, and its frames
equal a direct full query exactly (issue #13): new scrapes, a late backfill, a new series."""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import pytest

from dashboard.core.selection import Selection, all_data_range, time_range
from dashboard.services import explain, overview
from dashboard.services.window_cache import PER_WINDOW, WindowCache
from dashboard.store.blocks import roll_up
from dashboard.store.db import open_store
from dashboard.store.writes import write_samples
from tests.sample_store import SampleRows, sample_rows

TICK = timedelta(minutes=10)


@pytest.fixture(scope="module")
def metrics() -> SampleRows:
    return sample_rows()


def service(name: str):
    return getattr(explain if name in explain.FRAMES else overview, name)


class Recorder:
    """compute() that remembers the range of every call."""

    def __init__(self, name: str) -> None:
        self.name, self.starts = name, []

    def __call__(self, store, sel: Selection) -> pd.DataFrame:
        self.starts.append(sel.time_range.start)
        return service(self.name)(store, sel)


def check_ticks(
    store, cache: WindowCache, metrics: SampleRows, history, until, preset_s: float | None
) -> list:
    """Write the sample up to `history` at once, then up to `until` one TICK at a time; after the
    history and after each tick every per-window frame from the cache must equal the direct query.
    Returns the recorders of the last tick."""
    written = metrics.ts.min() - timedelta(seconds=1)
    recorders = []
    while written < until:
        # NOTE: the history in one write: the ticks after it are what the cache is checked on
        upto = max(written + TICK, history)
        write_samples(store, metrics[(metrics.ts > written) & (metrics.ts <= upto)].table)
        roll_up(store)
        written = upto
        b = overview.bounds(store)
        tr = time_range(b.last_ts, preset_s) if preset_s else all_data_range(b.first_ts, b.last_ts)
        sel = overview.with_window(store, Selection(tr))
        recorders = []
        for name in sorted(PER_WINDOW):
            rec = Recorder(name)
            got = cache.frame(store, name, sel, b.last_ts, rec)
            pd.testing.assert_frame_equal(got, service(name)(store, sel), check_exact=True)
            recorders.append(rec)
    return recorders


@pytest.mark.parametrize("preset_s", [3600.0, None], ids=["last hour", "all data"])
def test_each_tick_equals_the_full_query_and_asks_only_for_the_newest_windows(tmp_path, metrics, preset_s):
    store = open_store(tmp_path / "ticks.duckdb")
    cache = WindowCache()
    try:
        # NOTE: under 2 h of data "all data" keeps its 60 s step (a longer range gets a new grid)
        start = metrics.ts.min()
        recorders = check_ticks(
            store, cache, metrics, start + timedelta(minutes=70), start + timedelta(minutes=100), preset_s
        )
    finally:
        store.close()
    b_start = metrics.ts.min()
    for rec in recorders:  # the last tick: one call, for the windows after the kept ones
        assert len(rec.starts) == 1 and rec.starts[0] > b_start + timedelta(minutes=80), rec.name


def test_a_late_sample_in_a_kept_window_makes_the_next_tick_ask_again(tmp_path, metrics):
    store = open_store(tmp_path / "late.duckdb")
    cache = WindowCache()
    try:
        start = metrics.ts.min()
        held_back = (metrics.ts > start + timedelta(minutes=30)) & (
            metrics.ts <= start + timedelta(minutes=31)
        )
        hour = start + timedelta(hours=1)
        check_ticks(store, cache, metrics[~held_back], hour, hour, None)
        write_samples(store, metrics[held_back].table)  # a backfill into windows the cache kept
        b = overview.bounds(store)
        sel = overview.with_window(store, Selection(all_data_range(b.first_ts, b.last_ts)))
        rec = Recorder("hit_rate")
        got = cache.frame(store, "hit_rate", sel, b.last_ts, rec)
        pd.testing.assert_frame_equal(got, overview.hit_rate(store, sel), check_exact=True)
        assert rec.starts == [sel.time_range.start]  # computed whole again
    finally:
        store.close()


def test_a_new_series_makes_the_next_tick_ask_again(tmp_path, metrics):
    store = open_store(tmp_path / "series.duckdb")
    cache = WindowCache()
    try:
        start = metrics.ts.min()
        pods = metrics.pod
        hour = start + timedelta(hours=1)
        check_ticks(store, cache, metrics[pods != "vllm-7"], hour, hour, None)
        write_samples(store, metrics[(pods == "vllm-7") & (metrics.ts <= hour)].table)
        b = overview.bounds(store)
        sel = overview.with_window(store, Selection(all_data_range(b.first_ts, b.last_ts)))
        rec = Recorder("kv_usage")
        got = cache.frame(store, "kv_usage", sel, b.last_ts, rec)
        pd.testing.assert_frame_equal(got, overview.kv_usage(store, sel), check_exact=True)
        assert "vllm-7" in set(got.pod) and rec.starts == [sel.time_range.start]
    finally:
        store.close()
