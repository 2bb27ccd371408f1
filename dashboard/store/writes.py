"""Bulk writes from Arrow or pandas; each call is one transaction, so bad input changes nothing."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from dashboard.core.types import SeriesSamples
from dashboard.store.db import Store
from dashboard.store.queries import execute_write

SAMPLE_COLUMNS = ("ts", "metric", "labels", "value")
REQUEST_COLUMNS = (
    "ts", "request_id", "session_id", "turn", "tenant", "input_tokens", "output_tokens",
    "block_tokens", "block_ids", "pod", "cached_tokens_gpu", "cached_tokens_cpu", "ttft_s",
)
ANNOTATION_COLUMNS = ("ts", "kind", "text")


def write_samples(store: Store, samples: pa.Table | pd.DataFrame, where: str = "samples") -> int:
    """Store metric samples given as (ts, metric, labels, value) rows; returns how many were new."""
    return write_series_samples(store, _grouped(samples, where), where)


def write_series_samples(store: Store, batch: SeriesSamples, where: str = "samples") -> int:
    """Store samples grouped by series (labels once per series); returns how many were new."""
    if not all(isinstance(m, str) and m for m in batch.metrics):
        raise ValueError(f"{where}: a sample has no metric name")
    try:
        series = pa.table({
            "idx": pa.array(np.arange(len(batch.metrics)), pa.int64()),
            "metric": pa.array(batch.metrics, pa.string()),
            "labels": pa.array([sorted((k, v) for k, v in d.items() if v is not None) for d in batch.labels],
                               LABELS_TYPE),
        })
    except pa.ArrowException as exc:
        raise ValueError(f"{where}: labels must map names to strings: {exc}") from None
    points = pa.table({
        "idx": pa.array(batch.series, pa.int64()),
        "ts": pa.array(batch.ts.astype("datetime64[us]"), pa.timestamp("us")),
        "value": pa.array(batch.values, pa.float64()),
    })
    with store.transaction() as cur:
        # NOTE: the registrations live on this transaction's cursor and end with it.
        cur.register("incoming_series", series)
        cur.register("incoming_points", points)
        return _insert_incoming(cur)


def write_query_result(store: Store, body: bytes, where: str = "query result") -> int:
    """Store the samples of a Prometheus query-API matrix answer, given as its raw JSON body.

    DuckDB parses the body (queries/write/query_result_read*.sql), so a large pull makes no Python
    object per sample; Prometheus's own compact encoding is split one series per line first, so
    DuckDB parses it on all threads. Returns how many samples were new.
    """
    lines = _result_lines(body)
    if lines is None:
        text = _INFINITE_VALUE.sub(lambda m: m[1] + (b'"-inf"' if m[2] == b"-" else b'"inf"') + m[3], body)
    else:  # no whitespace in the compact encoding, so plain replaces do (several times faster)
        text = lines.replace(b',"+Inf"]', b',"inf"]').replace(b',"-Inf"]', b',"-inf"]')
    with tempfile.TemporaryDirectory(prefix="kvscope-") as tmp:
        path = Path(tmp) / "answer.json"
        path.write_bytes(text)
        with store.transaction() as cur:
            try:
                execute_write(cur, "query_result_read" if lines is None else "query_result_read_lines", path=str(path))
            except duckdb.Error as exc:
                raise ValueError(f"{where}: not a Prometheus query answer: {str(exc).splitlines()[0][:200]}") from None
            execute_write(cur, "query_result_split")
            return _insert_incoming(cur)


def _result_lines(body: bytes) -> bytes | None:
    """A compact answer's result elements one per line; None for any other layout (read whole)."""
    end = len(body.rstrip())
    if not (body.startswith(_COMPACT_HEAD) and body.startswith(_COMPACT_TAIL, end - len(_COMPACT_TAIL))):
        return None
    inner = body[len(_COMPACT_HEAD):end - len(_COMPACT_TAIL)]
    if not inner.startswith(_ELEMENT_START):
        return None
    return inner.replace(b"}," + _ELEMENT_START, b"}\n" + _ELEMENT_START)


def _insert_incoming(cur) -> int:
    """Add the cursor's incoming_series / incoming_points to the store; how many samples were new."""
    lo, hi = cur.execute("SELECT min(ts), max(ts) FROM incoming_points").fetchall()[0]
    if lo is None:
        return 0
    execute_write(cur, "series_stage")
    execute_write(cur, "series_insert")
    # NOTE: deduplicating the batch costs a sixth of the write, and only a batch with two series
    # of one key can repeat a (series, ts), so the insert skips it otherwise.
    shares_keys = cur.execute("SELECT count(*) > count(DISTINCT series_key) FROM staged_series").fetchall()[0][0]
    execute_write(cur, "samples_insert", lo=lo, hi=hi, shares_keys=shares_keys)
    return cur.fetchall()[0][0]  # the INSERT's row count


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
# NOTE: only a sample's value is a string followed by `]`, so an `le="+Inf"` label is left as it is.
_INFINITE_VALUE = re.compile(rb'(,\s*)"([+-])Inf"(\s*\])')
# Prometheus's own encoding of a matrix answer, no whitespace. NOTE: `{"` cannot occur inside a
# JSON string (its quote would be escaped), so `},{"metric":` only ever separates two elements.
_COMPACT_HEAD = b'{"status":"success","data":{"resultType":"matrix","result":['
_COMPACT_TAIL = b"]}}"
_ELEMENT_START = b'{"metric":'


def _grouped(samples: pa.Table | pd.DataFrame, where: str) -> SeriesSamples:
    """(ts, metric, labels, value) rows → SeriesSamples; labels may be dicts, maps or structs."""
    frame = _as_arrow(samples, SAMPLE_COLUMNS, where).to_pandas() if isinstance(samples, pa.Table) else samples
    missing = [c for c in SAMPLE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{where}: missing column(s) {', '.join(missing)}")
    ids: dict[tuple, int] = {}
    # NOTE: a frozenset of the label items is the cheapest hashable key per row; the SQL
    # canonicalises each distinct series once (sorted keys, empty struct fields dropped).
    keys = zip(frame["metric"].tolist(), map(_label_items, frame["labels"].tolist()), strict=True)
    series = np.fromiter((ids.setdefault(k, len(ids)) for k in keys), np.int64, len(frame))
    return SeriesSamples(
        metrics=[metric for metric, _ in ids], labels=[dict(items) for _, items in ids], series=series,
        ts=_timestamps(frame["ts"], where), values=_floats(frame["value"], where),
    )


def _label_items(labels) -> frozenset:
    if labels is None:
        return frozenset()
    return frozenset(labels.items() if isinstance(labels, dict) else labels)


def _timestamps(column: pd.Series, where: str) -> np.ndarray:
    """Naive-UTC datetime64[us]; naive input is taken as UTC, aware input converted."""
    try:
        stamps = pd.to_datetime(column, utc=True)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{where}: column 'ts' is not a timestamp: {exc}") from None
    if stamps.isna().any():
        raise ValueError(f"{where}: column 'ts' has a missing timestamp (row {int(stamps.isna().argmax())})")
    return stamps.dt.tz_localize(None).to_numpy().astype("datetime64[us]")


def _floats(column: pd.Series, where: str) -> np.ndarray:
    try:
        return np.asarray(column, dtype=np.float64)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{where}: column 'value' is not a number: {exc}") from None


def _as_arrow(data: pa.Table | pd.DataFrame, columns: tuple[str, ...], where: str) -> pa.Table:
    table = data if isinstance(data, pa.Table) else pa.Table.from_pandas(data, preserve_index=False)
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise ValueError(f"{where}: missing column(s) {', '.join(missing)}")
    return table.select(list(columns))
