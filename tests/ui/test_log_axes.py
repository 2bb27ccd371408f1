"""Log axes label each tick with its whole value and unit (dashboard/ui/log_axes.py)."""

from __future__ import annotations

import numpy as np

from dashboard.core.trace_stats import Cdf
from dashboard.ui import trace_charts
from dashboard.ui.log_axes import decades, tick_values


def test_decades_enclose_the_positive_finite_values_and_span_at_least_one():
    assert decades([0.0, 0.03, 4.0, np.inf, np.nan, -1.0]) == (-2, 1)
    assert decades([10.0]) == (1, 2)
    assert decades([]) == (-2, -1)


def test_short_spans_add_2x_and_5x_and_long_spans_label_every_other_decade():
    assert tick_values(-2, 0) == [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
    assert tick_values(0, 4) == [1.0, 10.0, 100.0, 1000.0, 10000.0]
    assert tick_values(-5, 3) == [1e-5, 1e-3, 1e-1, 10.0, 1000.0]


def _cdf(values) -> Cdf:
    values = np.sort(np.asarray(values, dtype=float))
    return Cdf(values=values, fractions=np.arange(1, values.size + 1) / values.size, num_values=values.size)


def test_a_cdf_in_seconds_labels_its_ticks_with_units_and_one_in_counts_with_si_prefixes():
    gaps = _cdf([0.002, 0.5, 3.0, 40.0])
    fig = trace_charts.cdf_chart(gaps, "gap", "time since the block's last use", seconds=True)
    assert fig.layout.xaxis.type == "log"
    assert list(fig.layout.xaxis.ticktext) == ["1 ms", "10 ms", "100 ms", "1 s", "10 s", "100 s"]
    assert fig.layout.xaxis.minor.showgrid is False  # five decades: a line at every 2×…9× would crowd
    # The minor marks sit at 2×…9× only: one at the axis's start stood beside the y axis's "0"
    minor = np.asarray(fig.layout.xaxis.minor.tickvals)
    assert (
        minor.size == 5 * 8 and minor.min() == 0.002 and not np.isin(minor, fig.layout.xaxis.tickvals).any()
    )
    assert "4 values" in fig.layout.title.text
    counts = trace_charts.cdf_chart(_cdf([1, 7, 300]), "gap", "requests since the block's last use")
    assert counts.layout.xaxis.tickformat == "~s" and counts.layout.xaxis.ticktext is None
    assert counts.layout.xaxis.minor.showgrid is True
    assert list(counts.layout.xaxis.tickvals) == [
        1.0,
        2.0,
        5.0,
        10.0,
        20.0,
        50.0,
        100.0,
        200.0,
        500.0,
        1000.0,
    ]
