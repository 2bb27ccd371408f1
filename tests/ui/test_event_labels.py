"""Event labels on the time charts: above the plot, never on the data; close events stack on rows
upward, never on top of each other; a label near the end ends at its line."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dashboard.ui.markers import LABEL_ROW_PX, add_annotations, label_rows, label_spans
from dashboard.ui.theme import register_template

T0 = pd.Timestamp("2026-11-30 00:00")


def at(minutes: float) -> pd.Timestamp:
    return T0 + pd.Timedelta(minutes=minutes)


def six_hours(height: int = 360) -> go.Figure:
    return go.Figure(
        go.Scatter(x=[at(0), at(360)], y=[0, 1]), layout={"template": register_template(), "height": height}
    )


def labelled(fig: go.Figure, events: dict[str, float]) -> dict:
    notes = pd.DataFrame({"ts": [at(m) for m in events.values()], "kind": list(events), "text": ""})
    add_annotations(fig, notes)
    return {a.text: a for a in fig.layout.annotations}


def test_labels_far_apart_share_the_row_next_to_the_plot():
    spans = label_spans([0.0, 0.33, 0.66], ["routing", "restart", "burst"])
    assert label_rows(spans) == [0, 0, 0]


def test_a_label_that_would_overlap_moves_up_and_the_first_row_is_reused_once_clear():
    spans = label_spans([0.30, 0.31, 0.32, 0.70], ["finding: routing", "routing", "burst", "restart"])
    assert label_rows(spans) == [0, 1, 2, 0]


def test_a_label_that_would_run_past_the_end_ends_at_its_line():
    ((start, end),) = label_spans([0.95], ["finding: offload"])
    assert end == 0.95 and start < 0.95
    labels = labelled(six_hours(), {"finding: offload": 0.95 * 360, "routing": 60})
    assert labels["finding: offload"].xanchor == "right" and labels["routing"].xanchor == "left"


def test_every_label_sits_above_the_plot_on_its_row_and_its_line_spans_the_plot():
    fig = six_hours()
    labels = labelled(fig, {"b": 300, "a": 120, "c": 301})
    for a in labels.values():
        assert a.yref == "paper" and a.y == 1 and a.yanchor == "bottom"  # the plot's top, upwards
    assert labels["a"].yshift == labels["b"].yshift == 0 and labels["c"].yshift == LABEL_ROW_PX
    dashed = [s for s in fig.layout.shapes if s.line.dash == "dash"]
    assert len(dashed) == 3 and all((s.y0, s.y1) == (0, 1) for s in dashed)
    stems = [s for s in fig.layout.shapes if s.ysizemode == "pixel"]
    assert sorted(s.y1 for s in stems) == [LABEL_ROW_PX - 2] * 2 + [2 * LABEL_ROW_PX - 2]


def test_extra_rows_make_the_figure_taller_by_as_much_as_the_top_margin_grows():
    one_row, two_rows = six_hours(), six_hours()
    labelled(one_row, {"a": 60, "b": 240})
    labelled(two_rows, {"a": 60, "b": 61})
    top = one_row.layout.template.layout.margin.t
    assert one_row.layout.margin.t is None and one_row.layout.height == 360
    assert two_rows.layout.margin.t == top + LABEL_ROW_PX and two_rows.layout.height == 360 + LABEL_ROW_PX
