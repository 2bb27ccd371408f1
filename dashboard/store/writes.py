"""Bulk writes from Arrow or pandas; each call is one transaction, so bad input changes nothing."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from dashboard.store.db import Store
from dashboard.store.queries import execute_write

SAMPLE_COLUMNS = ("ts", "metric", "labels", "value")
REQUEST_COLUMNS = (
    "ts", "request_id", "session_id", "turn", "tenant", "input_tokens", "output_tokens",
    "block_tokens", "block_ids", "pod", "cached_tokens_gpu", "cached_tokens_cpu", "ttft_s",
)
ANNOTATION_COLUMNS = ("ts", "kind", "text")


def write_samples(store: Store, samples: pa.Table | pd.DataFrame, where: str = "samples") -> int:
    """Store metric samples (ts, metric, labels map, value); returns how many were new."""
    table = _with_map_labels(_as_arrow(samples, SAMPLE_COLUMNS, where))
    if table.num_rows and pc.any(pc.is_null(table["metric"])).as_py():
        raise ValueError(f"{where}: a sample has no metric name")
    table = _cast_column(table, "ts", pa.timestamp("us"), where)
    table = _cast_column(table, "value", pa.float64(), where)
    with store.transaction() as cur:
        before = cur.execute("SELECT count(*) FROM samples").fetchall()[0][0]
        # NOTE: the registration lives on this transaction's cursor and ends with it.
        cur.register("incoming", table)
        execute_write(cur, "samples_stage")
        execute_write(cur, "series_insert")
        execute_write(cur, "samples_insert")
        after = cur.execute("SELECT count(*) FROM samples").fetchall()[0][0]
    return after - before


def write_requests(store: Store, requests: pa.Table | pd.DataFrame, where: str = "requests") -> int:
    """Append request rows in the interchange schema; returns the row count."""
    return _append(store, "requests_insert", _as_arrow(requests, REQUEST_COLUMNS, where))


def write_annotations(store: Store, annotations: pa.Table | pd.DataFrame, where: str = "annotations") -> int:
    """Append annotation rows (ts, kind, text); returns the row count."""
    return _append(store, "annotations_insert", _as_arrow(annotations, ANNOTATION_COLUMNS, where))


def load_interchange_dir(store: Store, folder: Path) -> dict[str, int]:
    """Load metrics/requests/annotations.parquet from folder into the store in one go."""
    counts = {}
    for name, writer in (
        ("metrics", write_samples),
        ("requests", write_requests),
        ("annotations", write_annotations),
    ):
        path = Path(folder) / f"{name}.parquet"
        if not path.exists():
            raise ValueError(f"{path}: missing (expected the DESIGN.md interchange files)")
        counts[name] = writer(store, pq.read_table(path), where=str(path))
    return counts


def _append(store: Store, statement: str, table: pa.Table) -> int:
    with store.transaction() as cur:
        cur.register("incoming", table)
        execute_write(cur, statement)
    return table.num_rows


LABELS_TYPE = pa.map_(pa.string(), pa.string())


def _with_map_labels(table: pa.Table) -> pa.Table:
    """Labels as MAP(VARCHAR, VARCHAR) whether they arrived as a map, dicts or structs."""
    labels = table["labels"]
    if labels.type == LABELS_TYPE:
        return table
    items = [
        None if d is None else sorted((k, v) for k, v in dict(d).items() if v is not None)
        for d in labels.to_pylist()
    ]
    return table.set_column(table.column_names.index("labels"), "labels", pa.array(items, LABELS_TYPE))


def _cast_column(table: pa.Table, name: str, to: pa.DataType, where: str) -> pa.Table:
    """The column cast to `to` (UTC-naive for timestamps), or a ValueError naming it."""
    column = table[name]
    if pa.types.is_timestamp(column.type) and column.type.tz is not None:
        column = pc.cast(column, pa.timestamp("us", tz="UTC")).cast(pa.timestamp("us"))
    try:
        column = column.cast(to)
    except pa.ArrowException as exc:
        raise ValueError(f"{where}: column {name!r} is not {to}: {exc}") from None
    return table.set_column(table.column_names.index(name), name, column)


def _as_arrow(data: pa.Table | pd.DataFrame, columns: tuple[str, ...], where: str) -> pa.Table:
    table = data if isinstance(data, pa.Table) else pa.Table.from_pandas(data, preserve_index=False)
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise ValueError(f"{where}: missing column(s) {', '.join(missing)}")
    return table.select(list(columns))
