"""Overview time against store size, for docs/scale.md: `python -m bench.bench_big_store plot`.

A store of the big cluster (bench/big_store.py) grows a day at a time; after each day the
Overview's default section for all data is timed from the sample blocks (median of 3, warm) and
from the samples (rollups off, one run), and the embedded 8-pod, 6-hour sample is the first point.
Writes docs/scale-overview.json (the points) and docs/scale-overview.png (about 15 minutes).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from bench.bench_big_store import Page, timed
from bench.big_store import NUM_DAYS, cache_dir, cached_tile, day_batches, layout
from bench.run import ROOT
from dashboard.services import overview
from dashboard.services.sample import load_sample
from dashboard.store.blocks import roll_up, set_rollups
from dashboard.store.db import Store, open_store
from dashboard.store.writes import write_series_samples
from dashboard.ui.charts import log_seconds_axis
from dashboard.ui.export import export_png

OUT = ROOT / "docs" / "scale-overview"


def point(store: Store, label: str) -> dict:
    """All-data render seconds from blocks and from samples, with the store's sample count."""
    page = Page(store, None)
    page.render()
    blocks_s, blocks_cpu = timed(page.render, 3)
    set_rollups(store, False)
    try:
        samples_s, _ = timed(Page(store, None).render, 1)
    finally:
        set_rollups(store, True)
    num = int(overview.bounds(store).num_samples)
    print(f"{label}: {num:,} samples, blocks {blocks_s:.2f} s, samples {samples_s:.2f} s", flush=True)
    return {
        "store": label,
        "num_samples": num,
        "blocks_s": blocks_s,
        "blocks_cpu_s": blocks_cpu,
        "samples_s": samples_s,
        "load_average": os.getloadavg()[0],
    }


def measure() -> list[dict]:
    """The sample, then the big store after each day."""
    points = []
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        sample = Path(tmp) / "sample.duckdb"
        load_sample(sample)
        store = open_store(sample)
        points.append(point(store, "sample: 8 pods × 6 h"))
        store.close()
        lay = layout(cached_tile())
        carry = np.zeros(len(lay.tiles))
        store = open_store(Path(tmp) / "grow.duckdb")
        try:
            for day in range(NUM_DAYS):
                for batch in day_batches(lay, day, carry):
                    write_series_samples(store, batch, where="plot")
                roll_up(store, late_s=0.0)
                points.append(point(store, f"64 pods × {day + 1} d"))
        finally:
            store.close()
    return points


def figure(points: list[dict]) -> go.Figure:
    """Render seconds against samples stored, both paths, log-log."""
    x = [p["num_samples"] for p in points]
    fig = go.Figure()
    fig.add_scatter(
        x=x, y=[p["samples_s"] for p in points], name="from samples (rollups off)", mode="lines+markers"
    )
    fig.add_scatter(x=x, y=[p["blocks_s"] for p in points], name="from sample blocks", mode="lines+markers")
    fig.add_scatter(
        x=x,
        y=[p["blocks_cpu_s"] for p in points],
        name="from sample blocks, CPU seconds (steadier on a shared machine)",
        mode="lines+markers",
        line={"dash": "dash"},
    )
    fig.add_hline(y=2.0, line_dash="dot")
    # NOTE: on a log axis an annotation's y is the log10 of the value
    fig.add_annotation(
        x=0, xref="paper", y=math.log10(2.0), text="2 s", showarrow=False, xanchor="left", yanchor="bottom"
    )
    fig.update_layout(
        title="Overview render (all data, default section) against store size, seconds",
        xaxis={"title": "samples in the store (log scale)", "type": "log", "dtick": 1, "tickformat": "~s"},
        yaxis={"title": "render time (wall, 2 shared cores; log scale)"},
        template="plotly_white",
    )
    # NOTE: labelled decades (and 2×, 5×), as the app's log axes: no crowd of minor digits
    return log_seconds_axis(
        fig, pd.Series([p[k] for p in points for k in ("samples_s", "blocks_s", "blocks_cpu_s")])
    )


def main(redraw: bool = False) -> None:
    """Measure (or, with redraw, read the points written before), then write them and the
    picture under docs/."""
    points = json.loads(OUT.with_suffix(".json").read_text()) if redraw else measure()
    OUT.with_suffix(".json").write_text(json.dumps(points, indent=2) + "\n")
    loads = ", ".join(f"{p['load_average']:.1f}" for p in points)
    caption = (
        "kvscope bench: python -m bench.bench_big_store plot (64 pods at 15 s scrapes, grown a day at a "
        f"time; 2 shared cores, 1-min load average per point: {loads})"
    )
    OUT.with_suffix(".png").write_bytes(export_png(figure(points), caption, scale=1.0))
