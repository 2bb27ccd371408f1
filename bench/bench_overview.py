"""The Overview page's queries on the sample store (issue 2): median time per page render."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pyarrow.parquet as pq

from bench.run import Result, timed_median
from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.services import overview
from dashboard.services.sample import load_sample
from dashboard.store.db import open_store

COMMAND = "python -m bench.run bench_overview"


def render_queries(store, tr: overview.TimeRange) -> None:
    """Every query one Overview render runs (no Streamlit cache)."""
    overview.kpis(store, tr)
    overview.hit_rate(store, tr)
    overview.ttft_quantiles(store, tr)
    overview.ttft_distribution(store, tr)
    overview.kv_usage(store, tr)
    overview.capacity(store)
    overview.offload_traffic(store, tr)
    overview.routing(store, tr)
    overview.annotations(store, tr)


def run() -> list[Result]:
    """All-data and last-hour renders vs reading the raw metrics file (the I/O floor)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        load_sample(db)
        store = open_store(db, read_only=True)
        bounds = overview.bounds(store)
        whole = overview.time_range(bounds.last_ts, (bounds.last_ts - bounds.first_ts).total_seconds())
        hour = overview.time_range(bounds.last_ts, 3600)
        read_s = timed_median(lambda: pq.read_table(SAMPLE_DATA_DIR / "metrics.parquet"), repeats=5)
        whole_s = timed_median(lambda: render_queries(store, whole), repeats=5)
        hour_s = timed_median(lambda: render_queries(store, hour), repeats=5)
        store.close()
    note = (
        f"{bounds.num_samples:,} samples in {bounds.num_series:,} series; 10 queries per render; "
        "baseline: reading metrics.parquet with pyarrow"
    )
    return [
        Result(
            "Overview queries, all 6 h of the sample",
            COMMAND,
            whole_s * 1000,
            "ms",
            "read metrics.parquet",
            read_s * 1000,
            notes=note,
        ),
        Result(
            "Overview queries, last hour", COMMAND, hour_s * 1000, "ms", "read metrics.parquet", read_s * 1000
        ),
    ]
