"""Log axes whose every label says its whole value: '10 ms', '1 s', '2k', never a bare '2' or '5'.

NOTE: Plotly's own log ticks label the 2× and 5× of each decade with the digit alone ("D2"),
which on a seconds axis reads as 2 s and 5 s; these axes set their labelled ticks themselves and
leave the other minor ticks unlabelled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.core.units import duration_tick

MINOR_TICKS = {"ticks": "inside", "ticklen": 4, "gridcolor": "#f3f4f6"}
GRID_UP_TO = 3  # decades: over more, a grid line at every 2×…9× fills the plot


def minor_ticks(first: int, last: int) -> dict:
    """Unlabelled ticks at 2×…9× of each decade, with grid lines over a short span only.

    NOTE: listed rather than Plotly's "D1", which also marks each decade itself: the mark at the
    axis's start stood beside the other axis's "0" label, which read as "0'".
    """
    values = [m * 10.0**k for k in range(first, last) for m in range(2, 10)]
    return MINOR_TICKS | {"tickvals": values, "showgrid": last - first <= GRID_UP_TO}


def positive_finite(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """The positive finite values, as floats (from a list, an array or a pandas Series)."""
    array = np.asarray(values, dtype=float)
    return array[np.isfinite(array) & (array > 0)]


def decades(values: Sequence[float] | np.ndarray) -> tuple[int, int]:
    """The powers of ten just below the smallest and just above the largest positive finite value
    (at least one decade apart; 10^-2..10^-1 when there is none)."""
    positive = positive_finite(values)
    if not positive.size:
        return -2, -1
    first, last = math.floor(math.log10(positive.min())), math.ceil(math.log10(positive.max()))
    return first, max(last, first + 1)


def tick_values(first: int, last: int, dense_up_to: int = 2) -> list[float]:
    """The decades from 10^first to 10^last: over `dense_up_to` decades or fewer also their 2× and
    5×, over six every other one (the labels of a half-width chart stay apart)."""
    steps = (1, 2, 5) if last - first <= dense_up_to else (1,)
    stride = 2 if last - first > 6 else 1
    return [m * 10.0**k for k in range(first, last + 1, stride) for m in steps if m * 10.0**k <= 10.0**last]


def log_seconds_axis(fig: go.Figure, values: Sequence[float] | np.ndarray, axis: str = "y") -> go.Figure:
    """A log axis in seconds spanning whole decades, each labelled ('10 ms', '100 ms', '1 s')."""
    first, last = decades(values)
    ticks = tick_values(first, last)
    update = fig.update_yaxes if axis == "y" else fig.update_xaxes
    update(
        type="log",
        range=[first, last],
        tickvals=ticks,
        ticktext=[duration_tick(t) for t in ticks],
        minor=minor_ticks(first, last),
    )
    return fig


FITTED_STEPS = (1, 1.2, 1.5, 2, 3, 4, 5, 7)  # per decade, for values spanning a decade or less


def fitted_log_seconds_axis(fig: go.Figure, values: Sequence[float] | np.ndarray, **where) -> go.Figure:
    """A log y axis in seconds over the values' own range (Plotly's autorange), its ticks labelled
    with unit ('150 ms', '2 s'); for curves whose differences matter more than their decades. Values
    within a decade get ticks at 1, 1.2, 1.5, 2, 3, 4, 5 and 7 of it, wider spans those of
    log_seconds_axis. where selects the axis of a subplot (row=, col=)."""
    first, last = decades(values)
    positive = positive_finite(values)
    narrow = positive.size and positive.max() <= 10 * positive.min()
    ticks = (
        [m * 10.0**k for k in range(first, last) for m in FITTED_STEPS] + [10.0**last]
        if narrow
        else tick_values(first, last)
    )
    fig.update_yaxes(type="log", tickvals=ticks, ticktext=[duration_tick(t) for t in ticks], **where)
    return fig


def log_count_axis(fig: go.Figure, values: Sequence[float] | np.ndarray, axis: str = "x") -> go.Figure:
    """A log axis of counts (tokens, requests) over the values' own range, labelled '1', '10', '2k'.

    It shows only the values' range, less than the decades around it: 2× and 5× up to three."""
    first, last = decades(values)
    update = fig.update_yaxes if axis == "y" else fig.update_xaxes
    update(
        type="log",
        tickvals=tick_values(first, last, dense_up_to=3),
        tickformat="~s",
        minor=minor_ticks(first, last),
    )
    return fig
