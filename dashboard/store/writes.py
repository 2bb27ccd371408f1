"""Bulk writes from Arrow or pandas; each call is one transaction, so bad input changes nothing."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from dashboard.core.types import SeriesSamples
from dashboard.store.arrow_series import grouped_map_rows
from dashboard.store.blocks import WrittenSpan, has_blocks, keep_blocks, roll_up
from dashboard.store.db import Store
from dashboard.store.queries import execute_write

SAMPLE_COLUMNS = ("ts", "metric", "labels", "value")
REQUEST_COLUMNS = (
    "ts",
    "request_id",
    "session_id",
    "turn",
    "tenant",
    "input_tokens",
    "output_tokens",
    "block_tokens",
    "block_ids",
    "pod",
    "cached_tokens_gpu",
    "cached_tokens_cpu",
    "ttft_s",
)
ANNOTATION_COLUMNS = ("ts", "kind", "text")
MAX_KNOWN_SERIES = 100_000  # series ids a store keeps in memory (Store.known_series): ~25 MB


def write_samples(store: Store, samples: pa.Table | pd.DataFrame, where: str = "samples") -> int:
    """Store metric samples given as (ts, metric, labels, value) rows; returns how many were new."""
    return write_series_samples(store, _grouped(samples, where), where)


def write_series_samples(store: Store, batch: SeriesSamples, where: str = "samples") -> int:
    """Store samples grouped by series (labels once per series); returns how many were new."""
    with _series_transaction(store) as (cur, known):
        return _insert_samples(cur, batch, where, known)


def write_query_result(store: Store, answer: SeriesSamples, where: str = "query result") -> int:
    """Store the samples of a query-API matrix answer, as ingest parsed it.

    A series without a `pod` label gets its `instance` as pod (direct /metrics targets often lack
    one). Returns how many samples were new.
    """
    return write_query_results(store, [(answer, where)])


def write_query_results(store: Store, answers: list[tuple[SeriesSamples, str]]) -> int:
    """Store several answers, each (record, where), as write_query_result does, in one transaction.

    NOTE: DuckDB writes a transaction's appends straight into the database file once they fill a
    row group (122,880 rows), and only the rest goes through the WAL; the hourly answers of a
    pull are ~90k samples each, so writing two together makes the close's checkpoint ~6x cheaper.
    """
    stored = 0
    with _series_transaction(store) as (cur, known):
        for batch, where in answers:
            labels = [d if "pod" in d else {**d, "pod": d.get("instance", "")} for d in batch.labels]
            stored += _insert_samples(cur, replace(batch, labels=labels), where, known)
    return stored


@contextmanager
def _series_transaction(store: Store) -> Iterator[tuple[Any, SeriesIds]]:
    """A write transaction and the series ids it may take; the store keeps those the write
    registered once it commits (a rolled-back series has no id), forgetting older ones past
    MAX_KNOWN_SERIES."""
    known = SeriesIds(store.known_series, {})
    with store.transaction() as cur:
        yield cur, known
    # NOTE: pods that come and go (a Deployment's hashed pod names) add series for good; a
    # collector running for months must not hold every one of them in memory.
    if len(store.known_series) + len(known.this_write) > MAX_KNOWN_SERIES:
        store.known_series.clear()
    store.known_series.update(known.this_write)


@dataclass(frozen=True)
class SeriesIds:
    """The series ids a write may take without asking the store: those of committed writes, and
    those this write's transaction registered so far (kept apart until it commits)."""

    committed: dict[str, int]
    this_write: dict[str, int]

    def lookup(self, keys: list[str]) -> np.ndarray | None:
        """Every key's series_id, or None when one is in neither."""
        ids = [self.this_write.get(key, self.committed.get(key)) for key in keys]
        return None if None in ids else np.array(ids, np.int64)


def _insert_samples(cur, batch: SeriesSamples, where: str, known: SeriesIds) -> int:
    """Add a batch to the store on a transaction's cursor; how many samples were new."""
    if not all(isinstance(m, str) and m for m in batch.metrics):
        raise ValueError(f"{where}: a sample has no metric name")
    if len(batch.series) == 0:
        return 0
    try:
        labels = [tuple(sorted((k, v) for k, v in d.items() if v is not None)) for d in batch.labels]
        keys = [_series_key(metric, items) for metric, items in zip(batch.metrics, labels, strict=True)]
    except (AttributeError, TypeError):  # NOTE: a name or value that is not a string
        raise ValueError(f"{where}: labels must map names to strings") from None
    ids, num_new_series = known.lookup(keys), 0
    if ids is None:  # NOTE: a collector's every pull after its first has all its series known
        ids, num_new_series = _registered_ids(cur, keys, batch.metrics, labels, where)
        known.this_write.update(zip(keys, ids.tolist(), strict=True))
    ts = batch.ts.astype("datetime64[us]", copy=False)  # every writer already hands in microseconds
    points = (ids[batch.series], ts, batch.values)
    # NOTE: only a batch with two series of one key, or a series repeating a timestamp, can repeat
    # a (series, ts), so only then does the insert pay for deduplicating (a hash aggregate).
    may_repeat = len(set(keys)) < len(keys) or _may_repeat_timestamps(batch.series, ts)
    lo, hi = ts.min().item(), ts.max().item()
    if may_repeat:
        written = [_insert_checked(cur, points, lo, hi, shares_keys=True)]
    else:
        # NOTE: points after the latest stored sample of the span cannot be stored ones: only those
        # up to it go through the anti-join (a collector's chunk: its first instant, which the
        # chunk before ended on). The anti-join of whole chunks was a third of a pull's write time.
        execute_write(cur, "samples_stored_edge", lo=lo, hi=hi)
        edge = cur.fetchall()[0][0]
        if edge is None:  # NOTE: the span holds nothing yet: the whole batch as it is, no copies
            written = [_insert_new(cur, points)]
        else:
            later = ts > np.datetime64(edge, "us")
            written = [
                _insert_new(cur, tuple(column[later] for column in points)),
                _insert_checked(cur, tuple(column[~later] for column in points), lo, edge, shares_keys=False),
            ]
    spans = [span for span in written if span is not None]
    stored = sum(span.num_samples for span in spans)
    if stored and has_blocks(cur):
        span = WrittenSpan(min(s.lo for s in spans), max(s.hi for s in spans), stored)
        keep_blocks(cur, span, num_new_series)
    return stored


def _insert_new(cur, points: tuple[np.ndarray, np.ndarray, np.ndarray]) -> WrittenSpan | None:
    """Store points none of which the store holds (samples_insert_batch); their span (None: no points)."""
    if not len(points[1]):
        return None
    _register_points(cur, points)
    execute_write(cur, "samples_insert_batch")
    num = cur.fetchall()[0][0]
    return WrittenSpan(points[1].min().item(), points[1].max().item(), num)


def _insert_checked(cur, points: tuple, lo: datetime, hi: datetime, shares_keys: bool) -> WrittenSpan | None:
    """Store the points the store does not hold yet, lo..hi their span (samples_new); the span of
    those stored (None: none)."""
    if not len(points[1]):
        return None
    _register_points(cur, points)
    execute_write(cur, "samples_new", lo=lo, hi=hi, shares_keys=shares_keys)
    execute_write(cur, "samples_insert")
    if not cur.fetchall()[0][0]:  # the INSERT's row count
        return None
    execute_write(cur, "samples_new_span")
    return WrittenSpan(*cur.fetchall()[0])


def _register_points(cur, points: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    """(series_id, ts, value) columns as the cursor's `incoming_points`."""
    series_id, ts, value = points
    cur.register(
        "incoming_points",
        pa.table(
            {
                "series_id": pa.array(series_id, pa.int64()),
                "ts": pa.array(ts, pa.timestamp("us")),
                "value": pa.array(value, pa.float64()),
            }
        ),
    )


def _registered_ids(
    cur, keys: list[str], metrics: list[str], labels: list[tuple[tuple[str, str], ...]], where: str
) -> tuple[np.ndarray, int]:
    """series_id of each series, registering those the store has not seen; and how many it registered."""
    try:
        series = pa.table(
            {
                "idx": pa.array(np.arange(len(keys)), pa.int64()),
                "series_key": pa.array(keys, pa.string()),
                "metric": pa.array(metrics, pa.string()),
                "labels": pa.array(labels, LABELS_TYPE),
            }
        )
    except pa.ArrowException as exc:
        raise ValueError(f"{where}: labels must map names to strings: {exc}") from None
    # NOTE: the registrations live on this transaction's cursor and end with it.
    cur.register("incoming_series", series)
    return _series_ids(cur, len(keys))


def _series_ids(cur, num_series: int) -> tuple[np.ndarray, int]:
    """series_id of each incoming series (by idx), registering the ones the store has not seen;
    and how many it registered."""
    execute_write(cur, "series_ids")
    found = cur.fetchnumpy()
    num_known = len(found["idx"])
    if num_known < num_series:  # NOTE: after the first pull every series is known: one lookup
        execute_write(cur, "series_insert")
        execute_write(cur, "series_ids")
        found = cur.fetchnumpy()
    ids = np.empty(num_series, np.int64)
    ids[found["idx"]] = found["series_id"]
    return ids, num_series - num_known


def _may_repeat_timestamps(series: np.ndarray, ts: np.ndarray) -> bool:
    """False when the points run series by series with rising timestamps (a Prometheus answer),
    so no (series, ts) can repeat; True otherwise (a page repeating a series, unordered rows)."""
    if len(series) < 2:
        return False
    same = series[1:] == series[:-1]
    return bool(np.any(series[1:] < series[:-1]) or np.any(same & (ts[1:] <= ts[:-1])))


# NOTE: remembered: a collector's every chunk and pull names the same series again, and quoting
# them took ~40 ms of a 6 h pull's CPU (bench_ingest)
@functools.lru_cache(maxsize=1 << 16)
def _series_key(metric: str, sorted_labels: tuple[tuple[str, str], ...]) -> str:
    """`"metric"{"k":"v",…}`, every text quoted with `\\` and `"` escaped, labels sorted by name:
    one key per series whatever the labels' order, and no two label sets share one (a value
    holding `,` or `=` cannot pass for another label). queries/schema/007_series_keys.sql
    rewrites keys stored in the earlier `metric{k=v,…}` form to this one, in SQL."""
    return _quoted(metric) + "{" + ",".join(f"{_quoted(k)}:{_quoted(v)}" for k, v in sorted_labels) + "}"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


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
    roll_up(store, late_s=0.0)  # NOTE: the files are complete: no sample is still on its way
    return counts


def _append(store: Store, statement: str, table: pa.Table) -> int:
    with store.transaction() as cur:
        cur.register("incoming", table)
        execute_write(cur, statement)
    return table.num_rows


LABELS_TYPE = pa.map_(pa.string(), pa.string())


# NOTE: only a sample's value is a string followed by `]`, so an `le="+Inf"` label is left as it is.
def _grouped(samples: pa.Table | pd.DataFrame, where: str) -> SeriesSamples:
    """(ts, metric, labels, value) rows → SeriesSamples; labels may be dicts, maps or structs."""
    frame = samples
    if isinstance(samples, pa.Table):
        table = _as_arrow(samples, SAMPLE_COLUMNS, where)
        grouped = grouped_map_rows(table, where)  # NOTE: the interchange files' shape, without pandas
        if grouped is not None:
            return grouped
        frame = table.to_pandas()
    missing = [c for c in SAMPLE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{where}: missing column(s) {', '.join(missing)}")
    ids: dict[tuple, int] = {}
    # NOTE: a frozenset of the label items is the cheapest hashable key per row; the SQL
    # canonicalises each distinct series once (sorted keys, empty struct fields dropped).
    keys = zip(frame["metric"].tolist(), map(_label_items, frame["labels"].tolist()), strict=True)
    try:
        series = np.fromiter((ids.setdefault(k, len(ids)) for k in keys), np.int64, len(frame))
    except TypeError:  # NOTE: an unhashable label value, e.g. a list
        raise ValueError(f"{where}: labels must map names to strings") from None
    return SeriesSamples(
        metrics=[metric for metric, _ in ids],
        labels=[dict(items) for _, items in ids],
        series=series,
        ts=_timestamps(frame["ts"], where),
        values=_floats(frame["value"], where),
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
