"""queries/ttft_quantiles.sql computes quantiles exactly like Prometheus's histogram_quantile."""

from __future__ import annotations

from datetime import timedelta

import pytest

from dashboard.store.queries import run_query
from dashboard.store.writes import write_samples
from tests.store.helpers import T0, counter_rows, frame

BUCKET = "vllm:time_to_first_token_seconds_bucket"


def buckets(pod: str, cumulative: dict[str, list[float]]) -> list[tuple]:
    rows = []
    for le, values in cumulative.items():
        rows += counter_rows(BUCKET, {"pod": pod, "le": le}, values)
    return rows


def quantiles(store, q, **params):
    rows = run_query(
        store, "ttft_quantiles", start=T0, end=T0 + timedelta(seconds=60), step=60, q=q, **params
    )
    at60 = rows[rows.ts == T0 + timedelta(seconds=60)]
    return dict(zip(at60.q, at60.ttft_s, strict=True))


def test_quantile_interpolates_linearly_inside_the_bucket(store):
    # Window increases: le 0.1 → 10, le 0.5 → 16, +Inf → 20 observations.
    write_samples(store, frame(buckets("a", {"0.1": [0, 5, 10], "0.5": [0, 8, 16], "+Inf": [0, 10, 20]})))
    got = quantiles(store, [0.25, 0.5, 0.6])
    assert got[0.25] == pytest.approx(0.1 * 5 / 10)  # rank 5 in [0, 0.1]
    assert got[0.5] == pytest.approx(0.1)  # rank 10 = bucket top
    assert got[0.6] == pytest.approx(0.1 + 0.4 * (12 - 10) / (16 - 10))


def test_rank_in_the_inf_bucket_returns_the_highest_finite_bound(store):
    write_samples(store, frame(buckets("a", {"0.1": [0, 5, 10], "0.5": [0, 8, 16], "+Inf": [0, 10, 20]})))
    assert quantiles(store, [0.9, 0.99]) == {0.9: pytest.approx(0.5), 0.99: pytest.approx(0.5)}


def test_buckets_are_summed_over_pods_by_le(store):
    write_samples(
        store,
        frame(
            buckets("a", {"0.1": [0, 10], "1.0": [0, 10], "+Inf": [0, 10]})
            + buckets("b", {"0.1": [0, 0], "1.0": [0, 10], "+Inf": [0, 10]})
        ),
    )
    # 20 observations: 10 ≤ 0.1, 10 in (0.1, 1]. Median rank 10 → 0.1; p75 rank 15 → 0.55.
    got = quantiles(store, [0.5, 0.75])
    assert got[0.5] == pytest.approx(0.1)
    assert got[0.75] == pytest.approx(0.1 + 0.9 * 5 / 10)


def test_counter_reset_inside_the_window_is_not_a_negative_count(store):
    # Pod restarts between 30 s and 45 s; increases: 5 then 3 (the new value) for le 0.1, etc.
    write_samples(store, frame(buckets("a", {"0.1": [10, 15, 3], "0.5": [10, 20, 4], "+Inf": [10, 20, 4]})))
    got = quantiles(store, [0.5])
    # Increases: le 0.1: 5 + 3 = 8, le 0.5: 10 + 4 = 14, +Inf: 14. Rank 7 → 0.1 × 7/8.
    assert got[0.5] == pytest.approx(0.1 * 7 / 8)


def test_window_without_observations_gives_null(store):
    write_samples(store, frame(buckets("a", {"0.1": [5, 5, 5], "+Inf": [5, 5, 5]})))
    got = quantiles(store, [0.5])
    assert got[0.5] is None or got[0.5] != got[0.5]  # NULL or NaN, never a number


def test_non_monotonic_buckets_are_made_monotonic(store):
    # A scrape race can make a lower bucket exceed a higher one; Prometheus takes the running max.
    write_samples(store, frame(buckets("a", {"0.1": [0, 12], "0.5": [0, 10], "+Inf": [0, 20]})))
    got = quantiles(store, [0.55])
    # Monotonic counts: 12, 12, 20; rank 11 ≤ 12 → inside the first bucket.
    assert got[0.55] == pytest.approx(0.1 * 11 / 12)
