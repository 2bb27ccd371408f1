"""Event markers on time charts: a dashed line per event and its label, labels stacked on rows
below each other when events are close, so none covers another."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

LABEL_MIN_GAP = 0.22  # of the time axis: closer labels go on the next row down
LABEL_ROW_HEIGHT = 0.1  # of the plot height


def label_rows(ts: list[pd.Timestamp], span_s: float) -> list[int]:
    """A row per label so that labels closer than LABEL_MIN_GAP of the span never overlap."""
    last_in_row: list[pd.Timestamp] = []
    rows = []
    for t in ts:
        row = next(
            (i for i, last in enumerate(last_in_row) if (t - last).total_seconds() >= LABEL_MIN_GAP * span_s),
            len(last_in_row),
        )
        last_in_row[row : row + 1] = [t]
        rows.append(row)
    return rows


def _time_span_s(fig: go.Figure, notes: pd.DataFrame) -> float:
    xs = [
        pd.Timestamp(x)
        for trace in fig.data
        if trace.x is not None and len(trace.x)
        for x in (trace.x[0], trace.x[-1])
    ]
    xs += list(pd.to_datetime(notes.ts))
    return max((max(xs) - min(xs)).total_seconds(), 1.0)


def add_annotations(fig: go.Figure, notes: pd.DataFrame) -> go.Figure:
    """Dashed vertical lines with the event text for each annotation row (ts, kind, text)."""
    if notes.empty:
        return fig
    notes = notes.sort_values("ts", kind="stable")
    rows = label_rows(list(pd.to_datetime(notes.ts)), _time_span_s(fig, notes))
    # NOTE: built as plain dicts and set in one update: add_vline/add_annotation per event cost
    # ~30 ms each (Plotly validates the whole layout every call), a quarter of a cached render.
    lines, labels = [], []
    for row, level in zip(notes.itertuples(), rows, strict=True):
        x = pd.Timestamp(row.ts).isoformat()
        lines.append(
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "x0": x,
                "x1": x,
                "y0": 0,
                "y1": 1,
                "line": {"dash": "dash", "color": "#6b7280", "width": 1},
            }
        )
        labels.append(
            {
                "x": x,
                "y": 1 - LABEL_ROW_HEIGHT * level,
                "xref": "x",
                "yref": "paper",
                "text": row.kind,
                "hovertext": row.text,
                "showarrow": False,
                "xanchor": "left",
                "yanchor": "top",
                "font": {"size": 11, "color": "#374151"},
                "bgcolor": "rgba(255,255,255,0.8)",
            }
        )
    fig.update_layout(shapes=[*fig.layout.shapes, *lines], annotations=[*fig.layout.annotations, *labels])
    return fig
