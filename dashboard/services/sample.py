"""Write the sample dataset (DESIGN.md interchange format) and load it into a store."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.engine.readers.parquet import unreadable
from dashboard.sim.scenario import Story, sample_story
from dashboard.store.db import Store, store_session
from dashboard.store.queries import run_query
from dashboard.store.writes import (
    ANNOTATION_COLUMNS,
    LABELS_TYPE,
    REQUEST_COLUMNS,
    SAMPLE_COLUMNS,
    load_interchange_dir,
)

SAMPLE_START = datetime(2026, 11, 30)  # a parameter of the data, never the wall clock
FILES = ("metrics.parquet", "requests.parquet", "annotations.parquet")
INTERCHANGE_COLUMNS = {
    "metrics.parquet": SAMPLE_COLUMNS,
    "requests.parquet": REQUEST_COLUMNS,
    "annotations.parquet": ANNOTATION_COLUMNS,
}


def _is_number(kind: pa.DataType) -> bool:
    return pa.types.is_integer(kind) or pa.types.is_floating(kind)


def _is_id_list(kind: pa.DataType) -> bool:
    return (pa.types.is_list(kind) or pa.types.is_large_list(kind)) and pa.types.is_integer(kind.value_type)


# NOTE: the types a load would otherwise fail on half-way, after an earlier file was stored.
COLUMN_TYPES = {
    "ts": (lambda k: pa.types.is_timestamp(k) or pa.types.is_date(k), "a timestamp"),
    "value": (_is_number, "a number"),
    "input_tokens": (pa.types.is_integer, "an integer"),
    "output_tokens": (pa.types.is_integer, "an integer"),
    "block_tokens": (pa.types.is_integer, "an integer"),
    "block_ids": (_is_id_list, "a list of integers"),
}


def metrics_table(story: Story, start: datetime) -> pa.Table:
    """One row per scraped sample: ts, metric, labels (map), value."""
    stamps = np.array([start + timedelta(seconds=float(s)) for s in story.scrape_s], dtype="datetime64[us]")
    num = len(story.scrape_s)
    labels = [sorted(s.labels.items()) for s in story.series]
    return pa.table(
        {
            "ts": pa.array(np.tile(stamps, len(story.series)), pa.timestamp("us")),
            "metric": pa.array(
                [s.metric for s in story.series for _ in range(num)], pa.string()
            ).dictionary_encode(),
            "labels": pa.array([lab for lab in labels for _ in range(num)], LABELS_TYPE),
            "value": pa.array(np.concatenate([s.values for s in story.series]), pa.float64()),
        }
    )


def requests_table(story: Story, start: datetime) -> pa.Table:
    """One row per request with its routing, cache outcome and TTFT."""
    tr, out = story.trace, story.outcome
    offsets = tr.offsets
    stamps = np.datetime64(start, "us") + (tr.arrival_s * 1e6).astype("timedelta64[us]")
    return pa.table(
        {
            "ts": pa.array(stamps, pa.timestamp("us")),
            "request_id": pa.array([f"req-{i:06d}" for i in range(tr.num_requests)]),
            "session_id": pa.array([f"s-{s:05d}" for s in tr.session_ids]),
            "turn": pa.array(tr.turns, pa.int32()),
            "tenant": pa.array([f"tenant-{t}" for t in tr.tenant_ids]),
            "input_tokens": pa.array(tr.input_tokens, pa.int64()),
            "output_tokens": pa.array(tr.output_tokens, pa.int64()),
            "block_tokens": pa.array(np.full(tr.num_requests, tr.block_tokens), pa.int32()),
            "block_ids": pa.ListArray.from_arrays(
                pa.array(offsets, pa.int32()), pa.array(tr.block_ids.astype(np.int64))
            ),
            "pod": pa.array([story.spec.pod_names[p] for p in out.pod]),
            "cached_tokens_gpu": pa.array(out.cached_tokens[:, 0], pa.int64()),
            "cached_tokens_cpu": pa.array(out.cached_tokens[:, 1], pa.int64()),
            "ttft_s": pa.array(out.ttft_s, pa.float64()),
        }
    )


def annotations_table(story: Story, start: datetime) -> pa.Table:
    """The story's events."""
    return pa.table(
        {
            "ts": pa.array(
                [start + timedelta(seconds=t) for t, _, _ in story.annotations], pa.timestamp("us")
            ),
            "kind": [k for _, k, _ in story.annotations],
            "text": [x for _, _, x in story.annotations],
        }
    )


def write_sample(
    out_dir: Path, seed: int = 0, hours: float = 6.0, start: datetime = SAMPLE_START
) -> dict[str, int]:
    """Generate the story and write the three files; returns their sizes in bytes."""
    story = sample_story(seed=seed, hours=hours)
    out_dir.mkdir(parents=True, exist_ok=True)
    tables = (metrics_table(story, start), requests_table(story, start), annotations_table(story, start))
    sizes = {}
    for name, table in zip(FILES, tables, strict=True):
        # NOTE: fixed writer settings and no wall-clock metadata, so a seed gives identical bytes.
        pq.write_table(
            table,
            out_dir / name,
            compression="zstd",
            compression_level=9,
            use_dictionary=True,
            write_statistics=True,
            store_schema=False,
        )
        sizes[name] = (out_dir / name).stat().st_size
    return sizes


def store_is_empty(store: Store) -> bool:
    """True when the store holds no series, samples, requests or annotations."""
    counts = run_query(store, "store_counts").iloc[0]
    return int(counts.sum()) == 0


def load_sample(
    db: Path, folder: Path = SAMPLE_DATA_DIR, only_if_empty: bool = False
) -> dict[str, int] | None:
    """Load a sample folder into the store at db; None if only_if_empty and it holds samples.

    The folder is checked before the store is opened, and a store this call creates is removed
    again if the load fails, so bad input leaves no empty store file behind.
    """
    check_interchange_dir(folder)
    with store_session(db) as store:
        if only_if_empty and not store_is_empty(store):
            return None
        return load_interchange_dir(store, folder)


def check_interchange_dir(folder: Path) -> None:
    """ValueError naming the folder or file unless it holds the three readable interchange files."""
    guide = "docs/sim.md, section Files, lists the interchange files and their columns"
    if not folder.is_dir():
        raise ValueError(f"{folder}: no such folder ({guide})")
    for name, columns in INTERCHANGE_COLUMNS.items():
        path = folder / name
        if not path.is_file():
            raise ValueError(f"{path}: missing ({guide})")
        try:
            schema = pq.read_schema(path)
        except Exception as exc:  # pyarrow raises several types for a bad file
            raise unreadable(path, exc) from None
        missing = [c for c in columns if c not in schema.names]
        if missing:
            raise ValueError(f"{path}: missing column {missing[0]!r} ({guide})")
        for column, (is_type, what) in COLUMN_TYPES.items():
            if column in schema.names and not is_type(schema.field(column).type):
                kind = schema.field(column).type
                raise ValueError(f"{path}: column {column!r} must be {what}, got type {kind} ({guide})")
