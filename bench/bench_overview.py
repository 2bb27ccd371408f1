"""The Overview page's queries on the sample store (issue 2): median time per page render."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pyarrow.parquet as pq

from bench.run import Result, timed_median
from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.core.selection import Selection, all_data_range, time_range
from dashboard.services import explain, findings, overview
from dashboard.services.sample import load_sample
from dashboard.store.db import open_store

COMMAND = "python -m bench.run bench_overview"
APPLICABILITY_KEYS = ("prefix_cache_hits", "ttft_seconds", "kv_cache_usage", "lmcache_hit_tokens")


def render_queries(store, sel: Selection) -> None:
    """Every query one uncached Overview render runs (the page's services, no Streamlit cache)."""
    tr = sel.time_range
    overview.bounds(store)
    overview.pods(store)
    overview.missing_metrics(
        store, APPLICABILITY_KEYS
    )  # NOTE: the page asks once per panel group, cached 60 s
    findings.findings(store, tr.start, tr.end, max(findings.DEFAULT_STEP_S, tr.step_s))
    overview.kpis(store, sel)
    overview.window_caption(store, tr)
    for name in overview.FRAMES:
        getattr(overview, name)(store, sel)
    for name in explain.FRAMES:
        getattr(explain, name)(store, sel)
    explain.block_residency(store, sel)


def run() -> list[Result]:
    """All-data and last-hour renders vs reading the raw metrics file (the I/O floor)."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        load_sample(db)
        store = open_store(db, read_only=True)
        bounds = overview.bounds(store)
        whole = Selection(all_data_range(bounds.first_ts, bounds.last_ts))
        hour = Selection(time_range(bounds.last_ts, 3600))
        read_s = timed_median(lambda: pq.read_table(SAMPLE_DATA_DIR / "metrics.parquet"), repeats=5)
        whole_s = timed_median(lambda: render_queries(store, whole), repeats=5)
        hour_s = timed_median(lambda: render_queries(store, hour), repeats=5)
        store.close()
    note = (
        f"{bounds.num_samples:,} samples in {bounds.num_series:,} series; every query of one uncached "
        "render (findings, KPIs, every chart's frame, applicability); baseline: reading metrics.parquet "
        "with pyarrow"
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
