"""`kvscope load-sample`: the embedded sample into a new store, as `make run` loads it on first start."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

from bench.run import Result, interleaved_medians
from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.services.sample import load_sample
from dashboard.store.blocks import roll_up
from dashboard.store.db import open_store
from dashboard.store.writes import write_annotations, write_requests, write_samples

COMMAND = "python -m bench.run bench_load_sample"


def load_row_by_row(db: Path) -> None:
    """The same load with the files handed over as pandas frames: labels keyed row by row, the path
    every load took before the Arrow grouping (store/arrow_series.py)."""
    store = open_store(db)
    try:
        for name, writer in (
            ("metrics", write_samples),
            ("requests", write_requests),
            ("annotations", write_annotations),
        ):
            writer(store, pq.read_table(SAMPLE_DATA_DIR / f"{name}.parquet").to_pandas(), where=name)
        roll_up(store, late_s=0.0)
    finally:
        store.close()


def run() -> list[Result]:
    """Median wall seconds of load_sample into a new store vs the row-by-row load, alternated."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = (Path(tmp) / f"load-{i}.duckdb" for i in itertools.count())
        load_s, row_s = interleaved_medians(
            lambda: load_sample(next(paths)), lambda: load_row_by_row(next(paths)), repeats=5
        )
        rows = pq.read_metadata(SAMPLE_DATA_DIR / "metrics.parquet").num_rows
    return [
        Result(
            "load-sample: the embedded sample into a new store",
            COMMAND,
            load_s,
            "s",
            "the same files as pandas frames, labels keyed row by row",
            row_s,
            notes=(
                f"{rows:,} metric rows with map labels, the requests and annotations, and the roll-up into "
                "blocks; each run a new store file; medians of 5, the two loads alternated"
            ),
        )
    ]
