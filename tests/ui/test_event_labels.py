"""Event labels on the time charts: close events stack on rows below, never on top of each other."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dashboard.ui.markers import LABEL_MIN_GAP, add_annotations, label_rows

T0 = pd.Timestamp("2026-11-30 00:00")
SPAN_S = 6 * 3600.0


def at(minutes: float) -> pd.Timestamp:
    return T0 + pd.Timedelta(minutes=minutes)


def test_labels_far_apart_share_the_top_row():
    assert label_rows([at(0), at(120), at(240)], SPAN_S) == [0, 0, 0]


def test_a_label_closer_than_the_gap_moves_down_and_the_top_row_is_reused_once_clear():
    close = LABEL_MIN_GAP * SPAN_S / 60 / 2
    assert label_rows([at(120), at(120 + close), at(120 + 1.5 * close), at(300)], SPAN_S) == [0, 1, 2, 0]


def test_the_figure_places_close_events_on_distinct_rows():
    fig = go.Figure(go.Scatter(x=[at(0), at(360)], y=[0, 1]))
    notes = pd.DataFrame({"ts": [at(300), at(120), at(301)], "kind": ["b", "a", "c"], "text": ["", "", ""]})
    add_annotations(fig, notes)
    ys = {a.text: a.y for a in fig.layout.annotations}
    assert ys["a"] == 1 and ys["b"] == 1 and ys["c"] < 1
