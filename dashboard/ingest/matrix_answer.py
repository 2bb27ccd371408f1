"""Prometheus's own compact encoding of a matrix answer, scanned in one compiled pass.

A 6 h pull is millions of `[ts,"value"]` pairs; a general JSON parser spends most of the pull's
CPU building them, and on a small host that CPU is shared with Prometheus itself. The answer's
layout is fixed (Prometheus writes it without whitespace), so a byte scanner reads it at memory
speed: timestamps exactly as whole milliseconds, values through Arrow's string-to-double cast,
each series' labels through json.loads (a few hundred objects, not one per sample).
Anything the scanner does not expect (spaces, warnings, native histograms, an odd timestamp)
returns None, and parse_matrix_answer reads the answer with json instead.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from dashboard.core.types import SeriesSamples

HEAD = b'{"status":"success","data":{"resultType":"matrix","result":['
TAIL = b"]}}"
_ELEMENT_HEAD = np.frombuffer(b'{"metric":', np.uint8)
_VALUES_HEAD = np.frombuffer(b',"values":[', np.uint8)
_MIN_POINT_BYTES = 7  # `[1,"0"]`
_MIN_ELEMENT_BYTES = 25  # `{"metric":{},"values":[]}`
_QUOTE, _BACKSLASH, _COMMA, _DOT = 34, 92, 44, 46
_OPEN_BRACE, _CLOSE_BRACE, _OPEN_BRACKET, _CLOSE_BRACKET = 123, 125, 91, 93
_MAX_SECONDS_DIGITS = 15  # so seconds * 1000 + ms stays far inside int64


def parse_compact_matrix(body: bytes) -> SeriesSamples | None:
    """The samples of a matrix answer as Prometheus encodes it; None for any other layout.

    A series' `__name__` label becomes its metric (None when it has none), as
    parse_matrix_answer does for every other layout.
    """
    end = len(body.rstrip())
    if not (
        body.startswith(HEAD) and body.startswith(TAIL, end - len(TAIL)) and end >= len(HEAD) + len(TAIL)
    ):
        return None
    buf = np.frombuffer(body, np.uint8)
    start, stop = len(HEAD), end - len(TAIL)
    spans = np.empty((1 + (stop - start) // _MIN_ELEMENT_BYTES, 2), np.int64)
    num_points_max = 1 + (stop - start) // _MIN_POINT_BYTES
    point_series = np.empty(num_points_max, np.int64)
    point_ms = np.empty(num_points_max, np.int64)
    value_offsets = np.empty(num_points_max + 1, np.int32)
    value_bytes = np.empty(max(stop - start, 1), np.uint8)
    num_series, num_points = _scan(
        buf, start, stop, spans, point_series, point_ms, value_offsets, value_bytes
    )
    if num_series < 0:
        return None
    # NOTE: one json.loads over all the label objects: a call per object costs three times as much.
    try:
        objects = json.loads(b"[" + b",".join(body[a:b] for a, b in spans[:num_series].tolist()) + b"]")
    except ValueError:
        return None
    if not all(isinstance(v, str) for labels in objects for v in labels.values()):
        return None
    values = _floats(value_offsets[: num_points + 1], value_bytes[: value_offsets[num_points]], num_points)
    if values is None:
        return None
    return SeriesSamples(
        metrics=[labels.pop("__name__", None) for labels in objects],
        labels=objects,
        series=point_series[:num_points].copy(),
        ts=point_ms[:num_points].view("datetime64[ms]").astype("datetime64[us]"),
        values=values,
    )


def _floats(offsets: np.ndarray, data: np.ndarray, count: int) -> np.ndarray | None:
    """The value strings (`1.5`, `NaN`, `+Inf`) as doubles, parsed by Arrow; None if one is not a number."""
    strings = pa.StringArray.from_buffers(count, pa.py_buffer(offsets), pa.py_buffer(data))
    try:
        return pc.cast(strings, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:
        return None


@njit(cache=True, nogil=True)
def _scan(buf, pos, stop, spans, point_series, point_ms, value_offsets, value_bytes):
    """Scan the result elements in buf[pos:stop]; (num_series, num_points), or (-1, 0) on anything
    unexpected. NOTE: buf[stop:] holds the answer's 3-byte tail, so peeking one byte past a check
    against stop never reads outside buf."""
    num_series = 0
    num_points = 0
    num_bytes = 0
    value_offsets[0] = 0
    if pos == stop:
        return 0, 0
    while True:
        if not _starts_with(buf, pos, stop, _ELEMENT_HEAD):
            return -1, 0
        pos += len(_ELEMENT_HEAD)
        spans[num_series, 0] = pos
        pos = _object_end(buf, pos, stop)
        if pos < 0 or not _starts_with(buf, pos, stop, _VALUES_HEAD):
            return -1, 0
        spans[num_series, 1] = pos
        pos += len(_VALUES_HEAD)
        if pos < stop and buf[pos] == _CLOSE_BRACKET:
            pos += 1
        else:
            while True:
                if pos >= stop or buf[pos] != _OPEN_BRACKET:
                    return -1, 0
                pos, ms = _timestamp_ms(buf, pos + 1, stop)
                if pos < 0 or buf[pos] != _COMMA or buf[pos + 1] != _QUOTE:
                    return -1, 0
                pos += 2
                while pos < stop and buf[pos] != _QUOTE:
                    if buf[pos] == _BACKSLASH:
                        return -1, 0
                    value_bytes[num_bytes] = buf[pos]
                    num_bytes += 1
                    pos += 1
                if pos >= stop or buf[pos + 1] != _CLOSE_BRACKET:
                    return -1, 0
                pos += 2
                point_series[num_points] = num_series
                point_ms[num_points] = ms
                num_points += 1
                value_offsets[num_points] = num_bytes
                if pos < stop and buf[pos] == _COMMA:
                    pos += 1
                elif pos < stop and buf[pos] == _CLOSE_BRACKET:
                    pos += 1
                    break
                else:
                    return -1, 0
        if pos >= stop or buf[pos] != _CLOSE_BRACE:
            return -1, 0
        pos += 1
        num_series += 1
        if pos == stop:
            return num_series, num_points
        if buf[pos] != _COMMA:
            return -1, 0
        pos += 1


@njit(cache=True, nogil=True)
def _starts_with(buf, pos, stop, token):
    if pos + len(token) > stop:
        return False
    i = 0
    while i < len(token) and buf[pos + i] == token[i]:
        i += 1
    return i == len(token)


@njit(cache=True, nogil=True)
def _object_end(buf, pos, stop):
    """The position just past the flat JSON object starting at pos (strings may hold `}`), or -1."""
    if pos >= stop or buf[pos] != _OPEN_BRACE:
        return -1
    pos += 1
    is_in_string = False
    while pos < stop:
        c = buf[pos]
        if is_in_string:
            if c == _BACKSLASH:
                pos += 1
            elif c == _QUOTE:
                is_in_string = False
        elif c == _QUOTE:
            is_in_string = True
        elif c == _CLOSE_BRACE:
            return pos + 1
        elif c in (_OPEN_BRACE, _OPEN_BRACKET):  # labels are flat: anything nested is not an answer
            return -1
        pos += 1
    return -1


@njit(cache=True, nogil=True)
def _timestamp_ms(buf, pos, stop):
    """A timestamp `1795996815` or `1795996815.123` (Prometheus's whole milliseconds) → (end, ms); end -1 otherwise."""
    seconds = 0
    num_digits = 0
    while pos < stop and 48 <= buf[pos] <= 57:
        seconds = seconds * 10 + (buf[pos] - 48)
        num_digits += 1
        pos += 1
    if num_digits == 0 or num_digits > _MAX_SECONDS_DIGITS:
        return -1, 0
    ms = 0
    if pos < stop and buf[pos] == _DOT:
        pos += 1
        scale = 100
        while pos < stop and 48 <= buf[pos] <= 57:
            if scale == 0:
                return -1, 0  # finer than a millisecond: not Prometheus's encoding
            ms += (buf[pos] - 48) * scale
            scale //= 10
            pos += 1
        if scale == 100:
            return -1, 0
    if pos >= stop:
        return -1, 0
    return pos, seconds * 1000 + ms


def parse_matrix_answer(body: bytes, where: str) -> SeriesSamples:
    """Any layout of a query-API matrix answer as the typed record the store takes.

    Prometheus's compact encoding goes through the scanner; any other layout (re-indented,
    `warnings`, native histograms, which carry no `values`) through json. Timestamps are rounded
    to whole milliseconds either way, so every layout stores the same samples.
    """
    batch = parse_compact_matrix(body)
    if batch is not None:
        return batch
    try:
        result = json.loads(body)["data"]["result"]
        metrics, labels, series, ts_ms, values = [], [], [], [], []
        for i, element in enumerate(result):
            names = {str(k): str(v) for k, v in element["metric"].items()}
            metrics.append(names.pop("__name__", None))
            labels.append(names)
            for t, v in element.get("values", []):
                series.append(i)
                ts_ms.append(round(float(t) * 1000))
                values.append(float(v))  # NOTE: float() reads Prometheus's NaN, +Inf and -Inf
    except (ValueError, KeyError, TypeError, AttributeError, IndexError):
        # NOTE: never quote the body: it may echo anything back (a credential too).
        raise ValueError(
            f"{where}: not a Prometheus API answer (expected a JSON matrix of samples)"
        ) from None
    return SeriesSamples(
        metrics=metrics,
        labels=labels,
        series=np.asarray(series, np.int64),
        ts=(np.asarray(ts_ms, np.int64) * 1000).astype("datetime64[us]"),
        values=np.asarray(values, np.float64),
    )
