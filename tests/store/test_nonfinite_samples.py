"""NaN and ±Inf samples are stored as sent, but never turn a window's hit rate or TTFT quantile into
NaN or a wrong count; each window says how many it skipped, and how many buckets it had to make
monotonic (issue 14, item 4)."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest

from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from dashboard.store.writes import write_samples
from tests.store.helpers import T0, counter_rows, frame, store_at_version

HITS, QUERIES = "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"
BUCKET = "vllm:time_to_first_token_seconds_bucket"
NAN, INF = float("nan"), float("inf")


def window_row(store, pod: str = "a"):
    rows = run_query(store, "hit_rate", start=T0, end=T0 + timedelta(seconds=60), step=60)
    picked = rows[(rows.ts == T0 + timedelta(seconds=60)) & (rows.pod == pod) & (rows.tier == "gpu")]
    assert len(picked) == 1, rows
    return picked.iloc[0]


@pytest.mark.parametrize("bad", [NAN, INF, -INF])
def test_a_non_finite_hit_sample_is_skipped_and_counted(store, bad):
    # Scrapes at 15, 30, 45, 60 s; the finite hits 0 → 10 → 30 increase by 30 over 300 queries.
    write_samples(
        store,
        frame(
            counter_rows(HITS, {"pod": "a"}, [0, 10, bad, 30])
            + counter_rows(QUERIES, {"pod": "a"}, [0, 100, 200, 300])
        ),
    )
    for pod in ("a", "*"):
        row = window_row(store, pod)
        assert row.hit_rate == pytest.approx(0.1) and row.hit_tokens == 30 and row.num_skipped == 1
    stored = store.cursor().execute("SELECT value FROM samples ORDER BY ts, value").fetchall()
    assert sum(1 for (v,) in stored if not math.isfinite(v)) == 1  # kept as sent


def test_a_nan_is_not_taken_for_a_counter_restart(store):
    # NaN compares above every number in DuckDB: 300 after a NaN looked like a restart (+300).
    write_samples(
        store,
        frame(
            counter_rows(HITS, {"pod": "a"}, [0, 10, 20, 30])
            + counter_rows(QUERIES, {"pod": "a"}, [100, NAN, 300, 400])
        ),
    )
    row = window_row(store)
    assert row.query_tokens == 300 and row.hit_rate == pytest.approx(30 / 300) and row.num_skipped == 1


def quantile_row(store, q: float):
    rows = run_query(store, "ttft_quantiles", start=T0, end=T0 + timedelta(seconds=60), step=60, q=[q])
    return rows[rows.ts == T0 + timedelta(seconds=60)].iloc[0]


def buckets(cumulative: dict[str, list[float]]) -> list[tuple]:
    return [
        row
        for le, values in cumulative.items()
        for row in counter_rows(BUCKET, {"pod": "a", "le": le}, values)
    ]


def test_a_nan_bucket_sample_is_skipped_and_counted(store):
    # le 0.5 reads 0, 8, NaN, 16: its increase over the finite samples is 16, as if NaN were absent.
    write_samples(
        store, frame(buckets({"0.1": [0, 5, 8, 10], "0.5": [0, 8, NAN, 16], "+Inf": [0, 10, 15, 20]}))
    )
    row = quantile_row(store, 0.6)
    assert row.ttft_s == pytest.approx(0.1 + 0.4 * (12 - 10) / (16 - 10))
    assert row.num_requests == 20 and row.num_skipped == 1 and row.num_fixed_buckets == 0


def test_a_non_monotonic_histogram_is_fixed_as_prometheus_does_and_says_so(store):
    # Increases: le 0.1 → 10, le 0.5 → 8 (fewer than below it), +Inf → 20. ensureMonotonic lifts
    # le 0.5 to 10, so the median (rank 10) is 0.1 and p75 (rank 15) lies in (0.5, +Inf]: 0.5.
    write_samples(store, frame(buckets({"0.1": [0, 10], "0.5": [0, 8], "+Inf": [0, 20]})))
    median, p75 = quantile_row(store, 0.5), quantile_row(store, 0.75)
    assert median.ttft_s == pytest.approx(0.1) and p75.ttft_s == pytest.approx(0.5)
    assert median.num_fixed_buckets == 1 and median.num_skipped == 0


def test_the_overview_headline_fixes_a_non_monotonic_histogram_and_says_so(store):
    from dashboard.core.selection import TimeRange
    from dashboard.services.overview import Selection, kpis

    write_samples(store, frame(buckets({"0.1": [0, 10], "0.5": [0, 8], "+Inf": [0, 20]})))
    k = kpis(store, Selection(TimeRange(T0, T0 + timedelta(seconds=60), 60.0)))
    assert k.ttft_p50_s == quantile_row(store, 0.5).ttft_s == pytest.approx(0.1)
    assert k.num_fixed_buckets == 1 and k.num_requests == 20


def test_a_store_made_before_the_fix_gets_it_when_opened_for_writing(tmp_path):
    db = tmp_path / "old.duckdb"
    old = store_at_version(db, 7)
    write_samples(
        old,
        frame(
            counter_rows(HITS, {"pod": "a"}, [0, 10, NAN, 30])
            + counter_rows(QUERIES, {"pod": "a"}, [0, 100, 200, 300])
        ),
    )
    assert math.isnan(window_row(old).hit_rate)  # the macro 005 made
    old.close()
    store = open_store(db)  # applies 008_window_finite
    try:
        assert window_row(store).hit_rate == pytest.approx(0.1)
    finally:
        store.close()


def test_the_overview_headline_says_how_many_samples_it_skipped(store):
    from dashboard.core.selection import TimeRange
    from dashboard.services.overview import Selection, kpis

    write_samples(
        store,
        frame(
            counter_rows(HITS, {"pod": "a"}, [0, 10, NAN, 30])
            + counter_rows(QUERIES, {"pod": "a"}, [0, 100, 200, 300])
        ),
    )
    k = kpis(store, Selection(TimeRange(T0, T0 + timedelta(seconds=60), 60.0)))
    assert k.gpu_hit_rate == pytest.approx(0.1)
    assert k.num_skipped_samples == 1
