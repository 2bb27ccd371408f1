"""The typed record ingest hands the store: joining pages and keeping the catalog's metrics."""

from __future__ import annotations

import numpy as np

from dashboard.core.types import SeriesSamples

TS = np.datetime64("2026-11-30T00:00:00", "us")


def page(*named: tuple[str, float], pod: str) -> SeriesSamples:
    return SeriesSamples(
        metrics=[m for m, _ in named],
        labels=[{"pod": pod} for _ in named],
        series=np.arange(len(named), dtype=np.int64),
        ts=np.full(len(named), TS),
        values=np.array([v for _, v in named]),
    )


def test_concat_keeps_each_sample_with_its_own_series():
    joined = SeriesSamples.concat([page(("a", 1.0), ("b", 2.0), pod="p0"), page(("a", 3.0), pod="p1")])
    assert joined.metrics == ["a", "b", "a"] and [d["pod"] for d in joined.labels] == ["p0", "p0", "p1"]
    assert joined.series.tolist() == [0, 1, 2] and joined.values.tolist() == [1.0, 2.0, 3.0]
    assert SeriesSamples.concat([]).num_samples == 0


def test_only_keeps_the_named_metrics_and_renumbers_their_series():
    kept = SeriesSamples.concat([page(("a", 1.0), ("b", 2.0), pod="p0"), page(("a", 3.0), pod="p1")]).only(
        {"a"}
    )
    assert kept.metrics == ["a", "a"] and [d["pod"] for d in kept.labels] == ["p0", "p1"]
    assert kept.series.tolist() == [0, 1] and kept.values.tolist() == [1.0, 3.0]
    assert kept.ts.tolist() == [TS.tolist()] * 2
