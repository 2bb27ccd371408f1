"""The Overview's headline and TTFT distribution come from per-series pieces of the whole range,
and an auto-refresh tick reads only the samples after the kept part (issue #17 item 1): the pieces
are the same from blocks as from samples, two adjacent ranges join into the whole exactly, the
numbers equal the one-window SQL queries, and a late write or a new series makes a tick read all."""

from __future__ import annotations

from datetime import datetime, timedelta

import pandas as pd
import pytest

from dashboard.core.selection import Selection, TimeRange, all_data_range, time_range
from dashboard.services import headline, overview, range_totals
from dashboard.services.range_totals import RangeCache
from dashboard.store.blocks import roll_up, set_rollups
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from dashboard.store.writes import write_samples
from tests.sample_store import SampleRows, sample_rows
from tests.store.messy import messy_frame

START = datetime(2026, 3, 2)
# (start, end): on the 30-min blocks, on the 5-min ones, across the blocks' mark, on no level
RANGES = [
    (START, START + timedelta(hours=4)),
    (START + timedelta(minutes=15), START + timedelta(hours=2, minutes=45)),
    (START + timedelta(hours=1), START + timedelta(hours=3)),
    (START + timedelta(minutes=7, seconds=30), START + timedelta(hours=3, minutes=1)),
]
TICK = timedelta(minutes=5)


@pytest.fixture(scope="module")
def messy(tmp_path_factory):
    store = open_store(tmp_path_factory.mktemp("range") / "messy.duckdb")
    write_samples(store, messy_frame())
    roll_up(store, late_s=2400.0)  # blocks up to 02:00, then an hour of samples read one by one
    yield store
    store.close()


@pytest.fixture(scope="module")
def metrics() -> SampleRows:
    """The sample's first 70 minutes (the ticks write 50)."""
    return sample_rows(minutes=70)


def pieces(store, start, end, pods=None) -> pd.DataFrame:
    return range_totals.read(store, start, end, pods).sort_values("series_id").reset_index(drop=True)


def same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    got = got.sort_values("series_id").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_exact=True, check_dtype=False)


@pytest.mark.parametrize("start, end", RANGES, ids=lambda t: f"{t:%H%M%S}")
def test_range_pieces_are_the_same_from_blocks_as_from_samples(messy, start, end):
    blocks = pieces(messy, start, end)
    set_rollups(messy, False)
    try:
        samples = pieces(messy, start, end)
    finally:
        set_rollups(messy, True)
    assert samples.num_skipped.sum() > 0 and len(samples) > 0  # NaN/±Inf inside, restarts too
    same(blocks, samples)


def test_the_pieces_of_two_adjacent_ranges_join_into_the_pieces_of_both(messy):
    start, end = RANGES[0]
    whole = pieces(messy, start, end)
    cut = start + timedelta(minutes=1)
    while cut < end:  # NOTE: cuts in gaps, beside NaN runs and restarts, inside and between blocks
        same(range_totals.join(pieces(messy, start, cut), pieces(messy, cut, end)), whole)
        cut += timedelta(minutes=7, seconds=30)


def one_window(store, tr: TimeRange, pods: list[str] | None) -> tuple[headline.Kpis, pd.DataFrame]:
    """The headline and distribution as the SQL computes them over the one window (start, end]."""
    whole = {"start": tr.end, "end": tr.end, "step": tr.length_s, "pods": pods}
    rates = run_query(store, "hit_rate", **whole)
    cluster = rates[rates.pod == "*"]
    ttft = run_query(store, "ttft_quantiles", q=[0.5, 0.99], **whole).set_index("q")
    rate = cluster.set_index("tier")["hit_rate"]
    kpis = headline.Kpis(
        gpu_hit_rate=rate.get("gpu"),
        offload_hit_rate=rate.get("offload"),
        ttft_p50_s=_none(ttft["ttft_s"].get(0.5)),
        ttft_p99_s=_none(ttft["ttft_s"].get(0.99)),
        num_requests=_none(ttft["num_requests"].get(0.5)),
        num_skipped_samples=int(cluster.num_skipped.sum())
        + int(ttft["num_skipped"].max() if len(ttft) else 0),
        num_fixed_buckets=int(ttft["num_fixed_buckets"].max() if len(ttft) else 0),
    )
    dist = run_query(store, "overview_ttft_distribution", start=tr.start, end=tr.end, pods=pods)
    return kpis, dist


def _none(value):
    return None if value is None or pd.isna(value) else float(value)


@pytest.mark.parametrize("pods", [None, ["a"], ["b", "c"]], ids=["cluster", "a", "b+c"])
@pytest.mark.parametrize("start, end", RANGES, ids=lambda t: f"{t:%H%M%S}")
def test_the_headline_and_distribution_equal_the_one_window_queries(messy, start, end, pods):
    tr = TimeRange(start, end, 60.0)
    want_kpis, want_dist = one_window(messy, tr, pods)
    got = range_totals.read(messy, start, end, pods)
    assert headline.kpis(got) == want_kpis
    assert want_kpis.num_skipped_samples > 0  # NaN/±Inf inside (non-monotone: test_nonfinite_samples)
    pd.testing.assert_frame_equal(headline.ttft_distribution(got), want_dist, check_exact=True)


def test_an_empty_range_has_no_headline(messy):
    got = range_totals.read(messy, START - timedelta(days=1), START - timedelta(hours=1), None)
    assert headline.kpis(got) == headline.Kpis(None, None, None, None, None)
    assert headline.ttft_distribution(got).empty


class Reads:
    """range_totals.read, remembering the (start, end) of every call."""

    def __init__(self) -> None:
        self.real, self.calls = range_totals.read, []

    def __call__(self, store, start, end, pods):
        self.calls.append((start, end))
        return self.real(store, start, end, pods)


def tick(store, cache: RangeCache, preset_s: float | None, pods=()) -> tuple[Selection, pd.DataFrame]:
    b = overview.bounds(store)
    tr = time_range(b.last_ts, preset_s) if preset_s else all_data_range(b.first_ts, b.last_ts)
    sel = Selection(tr, pods)
    return sel, cache.pieces(store, sel, b.last_ts)


@pytest.mark.parametrize("preset_s", [86400.0, None], ids=["last 24 h", "all data"])
def test_each_tick_equals_the_whole_range_and_reads_only_the_newest_part(
    tmp_path, monkeypatch, metrics, preset_s
):
    store = open_store(tmp_path / "ticks.duckdb")
    cache, reads = RangeCache(), Reads()
    monkeypatch.setattr(range_totals, "read", reads)
    num_kept, last_start = 0, None
    try:
        written = metrics.ts.min() - timedelta(seconds=1)
        for _ in range(10):
            write_samples(store, metrics[(metrics.ts > written) & (metrics.ts <= written + TICK)].table)
            roll_up(store)
            written += TICK
            reads.calls.clear()
            sel, got = tick(store, cache, preset_s, pods=("vllm-1", "vllm-2"))
            tick_reads = list(reads.calls)
            assert headline.kpis(got) == overview.kpis(store, sel)
            same(got, reads.real(store, sel.time_range.start, sel.time_range.end, sel.pod_list))
            if sel.time_range.start == last_start:  # NOTE: a range that moved is read whole, as it must
                assert all(start > last_start for start, _ in tick_reads), tick_reads
                assert tick_reads[-1][1] == sel.time_range.end
                num_kept += 1
            last_start = sel.time_range.start
    finally:
        store.close()
    assert num_kept >= 4  # the kept part was used, tick after tick


def read_again_after(tmp_path, monkeypatch, metrics, late: str) -> None:
    """Keep the first hour of every pod but vllm-7, write the late samples, tick: the whole range is
    read again and equals the direct read."""
    store = open_store(tmp_path / "late.duckdb")
    cache, reads = RangeCache(), Reads()
    monkeypatch.setattr(range_totals, "read", reads)
    start, end = metrics.ts.min(), metrics.ts.min() + timedelta(hours=1)
    pod7 = metrics.pod == "vllm-7"
    held_back = (metrics.ts > start + timedelta(minutes=30)) & (metrics.ts <= start + timedelta(minutes=31))
    try:
        write_samples(store, metrics[~held_back & ~pod7 & (metrics.ts <= end)].table)
        sel, _ = tick(store, cache, None)
        if late == "backfill":  # NOTE: into the kept part
            write_samples(store, metrics[held_back & ~pod7].table)
        else:  # NOTE: a pod seen the first time, its samples all after the kept part
            write_samples(
                store, metrics[pod7 & (metrics.ts > end - timedelta(seconds=30)) & (metrics.ts <= end)].table
            )
        reads.calls.clear()
        sel, got = tick(store, cache, None)
        assert reads.calls[0][0] == sel.time_range.start, reads.calls  # read from the start again
        same(got, pieces(store, sel.time_range.start, sel.time_range.end))
    finally:
        store.close()


def test_a_late_sample_in_the_kept_part_makes_the_next_tick_read_the_whole_range(
    tmp_path, monkeypatch, metrics
):
    read_again_after(tmp_path, monkeypatch, metrics, "backfill")


def test_a_new_series_makes_the_next_tick_read_the_whole_range(tmp_path, monkeypatch, metrics):
    read_again_after(tmp_path, monkeypatch, metrics, "new series")
