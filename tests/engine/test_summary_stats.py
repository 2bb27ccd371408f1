"""The compiled summary statistics give numpy's numbers bit for bit (the golden summaries rest on it)."""

from __future__ import annotations

import numpy as np

from dashboard.engine.summary import (
    FRACTIONS,
    NUM_TTFT_BINS,
    QUANTILES,
    column_sums,
    quantiles_s,
    row_sums,
    ttft_histogram,
)
from dashboard.engine.summary_stats import group_by, interpolate, per_pod_sums, percentiles

PERCENTS = list(QUANTILES.values())


def samples():
    """Value arrays of the kinds a replay produces: sizes 1 to 10^4, ties, zeros, a long tail."""
    rng = np.random.default_rng(7)
    yield np.array([0.25])
    yield np.array([0.1, 0.3])
    yield np.zeros(5)
    yield np.round(rng.exponential(0.2, 999), 3)  # many ties
    yield rng.lognormal(-2.0, 1.5, 10_007)
    for n in range(1, 40):
        yield rng.random(n) * 10.0 ** rng.integers(-4, 3)


def test_percentiles_equal_numpy():
    for values in samples():
        want = np.percentile(values, PERCENTS)
        assert np.array_equal(percentiles(values, FRACTIONS), want), values.size
        assert np.array_equal(interpolate(np.sort(values), FRACTIONS), want), values.size
        assert quantiles_s(values) == dict(zip(QUANTILES, want.tolist(), strict=True))


def test_percentiles_of_nan_are_nan_as_numpy_gives():
    values = np.array([0.1, np.nan, 0.3])
    assert np.isnan(np.percentile(values, PERCENTS)).all()
    assert np.isnan(percentiles(values, FRACTIONS)).all()


def test_histogram_equals_numpy():
    for values in samples():
        top = float(values.max())
        counts, edges = np.histogram(values, bins=NUM_TTFT_BINS, range=(0.0, top if top > 0 else 1.0))
        assert ttft_histogram(values) == {"edges_s": edges.tolist(), "counts": counts.tolist()}, values.size


def test_histogram_counts_a_value_on_an_inner_edge_in_the_bin_above():
    values = np.array([0.0, 0.1, 0.2, 0.3, 0.4])  # 0.1 * 40 / 0.4 is not exactly 10 in floats
    counts, _ = np.histogram(values, bins=NUM_TTFT_BINS, range=(0.0, 0.4))
    assert ttft_histogram(values)["counts"] == counts.tolist()
    assert sum(counts) == 5


def test_group_by_keeps_each_group_in_order():
    rng = np.random.default_rng(3)
    values, groups = rng.exponential(0.3, 5_000), rng.integers(0, 5, 5_000)
    groups[groups == 3] = 4  # an empty group
    starts, grouped = group_by(values, groups, 7)
    assert np.diff(starts).tolist() == np.bincount(groups, minlength=7).tolist()
    for g in range(7):
        assert np.array_equal(grouped[starts[g] : starts[g + 1]], values[groups == g])


def test_per_pod_sums_equal_bincount():
    rng = np.random.default_rng(5)
    pod, hits, blocks = rng.integers(0, 6, 999), rng.integers(0, 30, 999), rng.integers(30, 60, 999)
    requests, hit_sums, block_sums = per_pod_sums(pod.astype(np.int32), hits, blocks.astype(np.int32), 8)
    assert requests.tolist() == np.bincount(pod, minlength=8).tolist()
    assert hit_sums.tolist() == np.bincount(pod, weights=hits, minlength=8).astype(int).tolist()
    assert block_sums.tolist() == np.bincount(pod, weights=blocks, minlength=8).astype(int).tolist()


def test_column_and_row_sums_equal_numpy_without_overflow():
    rng = np.random.default_rng(9)
    for dtype in (np.int32, np.int64):
        for rows, cols in ((0, 3), (1, 1), (12_031, 3)):
            # NOTE: near int32's top, so a sum kept in the table's own dtype would wrap
            table = rng.integers(2**30, 2**31 - 1, (rows, cols)).astype(dtype)
            assert column_sums(table).tolist() == table.sum(axis=0, dtype=np.int64).tolist()
            assert row_sums(table).tolist() == table.sum(axis=1, dtype=np.int64).tolist()
