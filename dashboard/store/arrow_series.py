"""Group Arrow (ts, metric, labels map, value) rows into SeriesSamples without a row-by-row loop.

NOTE: the interchange files carry labels as map<string, string>; turning 700K such rows into pandas
(a list of tuples per row) and hashing each took 5 s of the sample's 6 s load. Here each label pair
becomes an integer code and each row the bytes of its codes, which Arrow's hash table numbers in
first-seen order; only the distinct rows (hundreds) are then keyed in Python as writes.py keys every
row, by metric and the set of label pairs. The same series come out, in the same order.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from dashboard.core.types import SeriesSamples


def grouped_map_rows(table: pa.Table, where: str) -> SeriesSamples | None:
    """SeriesSamples of a table whose labels are a string map; None for any other shape."""
    ts, metric, labels, value = (table.column(c) for c in ("ts", "metric", "labels", "value"))
    if not (
        pa.types.is_map(labels.type)
        and pa.types.is_string(labels.type.key_type)
        and pa.types.is_string(labels.type.item_type)
        and pa.types.is_timestamp(ts.type)
        and pa.types.is_string(metric.type)
        and (pa.types.is_floating(value.type) or pa.types.is_integer(value.type))
    ):
        return None
    labels = labels.combine_chunks()
    offsets = labels.offsets.to_numpy().astype(np.int64)
    if labels.null_count and np.diff(offsets)[labels.is_null().to_numpy(zero_copy_only=False)].any():
        return None  # NOTE: Arrow lets a null map own pairs; such rare input takes the per-row path
    metric_codes, metric_names = _codes(metric.combine_chunks())
    pair_codes, keys, values = _pair_codes(labels)
    raw = _raw_series(offsets, pair_codes, metric_codes)
    # NOTE: codes number rows in first-seen order, so the running maximum rises at each code's first row
    firsts = np.flatnonzero(np.diff(np.maximum.accumulate(raw), prepend=-1) > 0)
    ids: dict[tuple, int] = {}
    renumber = np.empty(firsts.size, np.int64)
    for code, row in enumerate(firsts):
        name = metric_names[metric_codes[row]] if metric_codes[row] >= 0 else None
        items = frozenset(_pairs(pair_codes[offsets[row] : offsets[row + 1]], keys, values))
        renumber[code] = ids.setdefault((name, items), len(ids))
    return SeriesSamples(
        metrics=[m for m, _ in ids],
        labels=[dict(items) for _, items in ids],
        series=renumber[raw],
        ts=_timestamps(ts, where),
        values=value.cast(pa.float64()).to_numpy(),
    )


def _codes(array: pa.Array) -> tuple[np.ndarray, list]:
    """Dictionary codes of array (-1 for null) and the dictionary."""
    encoded = array.dictionary_encode()
    return encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False), encoded.dictionary.to_pylist()


def _pair_codes(labels: pa.MapArray) -> tuple[np.ndarray, list, list]:
    """One code per (key, value) pair of the map's whole child arrays (null value: its own code)."""
    key_codes, keys = _codes(labels.keys)
    value_codes, values = _codes(labels.items)
    stride = len(values) + 1
    codes = key_codes.astype(np.int64 if len(keys) * stride >= 2**31 else np.int32)
    codes *= stride
    codes += value_codes
    codes += 1
    return codes, keys, values


def _pairs(codes: np.ndarray, keys: list, values: list):
    stride = len(values) + 1
    return ((keys[c // stride], values[c % stride - 1] if c % stride else None) for c in codes.tolist())


def _raw_series(offsets: np.ndarray, pair_codes: np.ndarray, metric_codes: np.ndarray) -> np.ndarray:
    """Per row, a code shared by the rows with the same metric and the same pairs in the same order."""
    width = pair_codes.itemsize
    rows = pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), offsets.size - 1, [None, pa.py_buffer(offsets * width), pa.py_buffer(pair_codes)]
    )
    row_codes = rows.dictionary_encode().indices.to_numpy().astype(np.int64)
    row_codes *= len(metric_codes) + 1
    row_codes += metric_codes
    row_codes += 1
    return pa.array(row_codes).dictionary_encode().indices.to_numpy().astype(np.int64)


def _timestamps(ts: pa.ChunkedArray, where: str) -> np.ndarray:
    """Naive-UTC datetime64[us]: Arrow keeps an aware timestamp as UTC, so its integers already are."""
    if ts.null_count:
        row = int(np.flatnonzero(ts.is_null().to_numpy(zero_copy_only=False))[0])
        raise ValueError(f"{where}: column 'ts' has a missing timestamp (row {row})")
    micros = ts.cast(pa.timestamp("us", ts.type.tz), safe=False).cast(pa.int64())
    return micros.to_numpy().view("datetime64[us]")
