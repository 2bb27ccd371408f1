"""Event markers on time charts: a dashed line per event across the plot, and its label in a strip
above the plot, so no label covers the data (the burst a label names is what the reader wants to
see). Close labels stack on rows upward; a label that would run past the end of the span ends at
its line instead of starting there, so it stays inside the figure."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

LABEL_ROW_PX = 16  # height of one row of labels (11 px text and its padding)
LABEL_ROWS_IN_MARGIN = 1  # rows that fit between the theme's subtitle and the plot (theme.py's top margin)
# NOTE: a label's width is judged from its text: 11 px text averages under 6.5 px a character, and
# an Overview chart's plot is at least ~440 px wide (two charts side by side in the wide layout).
CHAR_PX, LABEL_PAD_PX, PLOT_PX = 6.5, 8, 440


def label_spans(fractions: list[float], texts: list[str]) -> list[tuple[float, float]]:
    """The part of the time axis (0..1) each label covers: from its line rightwards, or leftwards
    when it would run past the end (it is then drawn ending at its line)."""
    spans = []
    for f, text in zip(fractions, texts, strict=True):
        width = (len(text) * CHAR_PX + LABEL_PAD_PX) / PLOT_PX
        spans.append((f - width, f) if f + width > 1 else (f, f + width))
    return spans


def label_rows(spans: list[tuple[float, float]]) -> list[int]:
    """A row per label (0 next to the plot) so that no two labels on one row overlap: each takes
    the lowest row whose labels so far all end before it starts (labels in order of their start)."""
    order = sorted(range(len(spans)), key=lambda i: spans[i][0])
    row_ends: list[float] = []
    rows = [0] * len(spans)
    for i in order:
        start, end = spans[i]
        row = next((r for r, last in enumerate(row_ends) if last <= start), len(row_ends))
        row_ends[row : row + 1] = [end]
        rows[i] = row
    return rows


def _time_extent(fig: go.Figure, notes: pd.DataFrame) -> tuple[pd.Timestamp, float]:
    xs = [
        pd.Timestamp(x)
        for trace in fig.data
        if trace.x is not None and len(trace.x)
        for x in (trace.x[0], trace.x[-1])
    ]
    xs += list(pd.to_datetime(notes.ts))
    return min(xs), max((max(xs) - min(xs)).total_seconds(), 1.0)


def add_annotations(fig: go.Figure, notes: pd.DataFrame) -> go.Figure:
    """Dashed vertical lines across the plot for each annotation row (ts, kind, text), kind as the
    label above the plot and text on hover; the top margin grows by a row per extra label row."""
    if notes.empty:
        return fig
    notes = notes.sort_values("ts", kind="stable")
    first, span_s = _time_extent(fig, notes)
    stamps = list(pd.to_datetime(notes.ts))
    fractions = [(t - first).total_seconds() / span_s for t in stamps]
    spans = label_spans(fractions, list(notes.kind))
    rows = label_rows(spans)
    # NOTE: built as plain dicts and set in one update: add_vline/add_annotation per event cost
    # ~30 ms each (Plotly validates the whole layout every call), a quarter of a cached render.
    lines, labels = [], []
    for row, t, f, (start, _), level in zip(notes.itertuples(), stamps, fractions, spans, rows, strict=True):
        x = t.isoformat()
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
        # its stem, from the plot's top up to its label's row, ties a label to its line
        lines.append(
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "ysizemode": "pixel",  # y0, y1: pixels above the plot's top
                "yanchor": 1,
                "x0": x,
                "x1": x,
                "y0": 0,
                "y1": LABEL_ROW_PX * level + LABEL_ROW_PX - 2,
                "line": {"color": "#9ca3af", "width": 1},
            }
        )
        labels.append(
            {
                "x": x,
                "y": 1,
                "xref": "x",
                "yref": "paper",
                "yshift": LABEL_ROW_PX * level,
                "text": row.kind,
                "hovertext": row.text,
                "showarrow": False,
                "xanchor": "left" if start == f else "right",  # label_spans: then it ends at its line
                "xshift": 2 if start == f else -2,
                "yanchor": "bottom",
                "font": {"size": 11, "color": "#374151"},
            }
        )
    extra_px = LABEL_ROW_PX * (max(rows) + 1 - LABEL_ROWS_IN_MARGIN)
    if extra_px > 0:  # more rows: a taller figure, so the plot keeps its height
        top = fig.layout.margin.t if fig.layout.margin.t is not None else _template_top(fig)
        fig.update_layout(margin={"t": top + extra_px})
        if fig.layout.height is not None:
            fig.update_layout(height=fig.layout.height + extra_px)
    fig.update_layout(shapes=[*fig.layout.shapes, *lines], annotations=[*fig.layout.annotations, *labels])
    return fig


def _template_top(fig: go.Figure) -> float:
    template = fig.layout.template
    top = template.layout.margin.t if template and template.layout and template.layout.margin else None
    return top if top is not None else 100  # Plotly's default
