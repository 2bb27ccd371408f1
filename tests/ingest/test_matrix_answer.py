"""The compact-answer scanner equals a plain json.loads reading of the same answer (hypothesis),
and hands every layout it does not expect back to the general reader."""

from __future__ import annotations

import json
import math
from decimal import Decimal

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.ingest.matrix_answer import HEAD, TAIL, parse_compact_matrix

LABEL_NAMES = st.sampled_from(["__name__", "pod", "le", "instance", "model_name", "a_b", "a"])
LABEL_VALUES = st.text(max_size=12)  # any text: quotes, braces, backslashes and non-ASCII included
VALUES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-(10**12), 10**12).map(str),
    st.sampled_from(["NaN", "+Inf", "-Inf", "0", "1e3", "-0.5"]),
)
MILLISECONDS = st.integers(0, 4_000_000_000_000)


def timestamp_text(ms: int) -> str:
    """Seconds as Prometheus writes them: whole milliseconds, trailing zeros dropped."""
    text = f"{ms // 1000}.{ms % 1000:03d}".rstrip("0")
    return text.rstrip(".")


@st.composite
def compact_answers(draw) -> bytes:
    elements = []
    for _ in range(draw(st.integers(0, 5))):
        labels = draw(st.dictionaries(LABEL_NAMES, LABEL_VALUES, max_size=4))
        points = draw(st.lists(st.tuples(MILLISECONDS, VALUES), max_size=6))
        metric = json.dumps(labels, separators=(",", ":"), ensure_ascii=draw(st.booleans()))
        values = ",".join(f'[{timestamp_text(ms)},"{v}"]' for ms, v in points)
        elements.append(f'{{"metric":{metric},"values":[{values}]}}')
    return HEAD + ",".join(elements).encode() + TAIL


def twin(body: bytes):
    """(metric, labels, [(ms, value)]) per series, read with json.loads."""
    answer = json.loads(body, parse_float=Decimal, parse_int=Decimal)
    out = []
    for element in answer["data"]["result"]:
        labels = dict(element["metric"])
        points = [(int(t * 1000), float(v)) for t, v in element["values"]]
        out.append((labels.pop("__name__", None), labels, points))
    return out


def scanned(body: bytes):
    batch = parse_compact_matrix(body)
    assert batch is not None
    ms = batch.ts.astype("datetime64[ms]").astype(np.int64)
    return [
        (
            metric,
            labels,
            [
                (int(t), float(v))
                for t, v in zip(ms[batch.series == i], batch.values[batch.series == i], strict=True)
            ],
        )
        for i, (metric, labels) in enumerate(zip(batch.metrics, batch.labels, strict=True))
    ]


def same(a, b) -> bool:
    """Equal, NaN equal to NaN."""

    def flat(rows):
        return [
            (metric, labels, [(t, "nan" if math.isnan(v) else v) for t, v in points])
            for metric, labels, points in rows
        ]

    return flat(a) == flat(b)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=compact_answers())
def test_the_scanner_reads_a_compact_answer_exactly_as_json_loads_does(body: bytes) -> None:
    assert same(scanned(body), twin(body))


def test_timestamps_keep_whole_milliseconds_exactly() -> None:
    body = (
        HEAD
        + b'{"metric":{"__name__":"m"},"values":[[1795996815.123,"1"],[1795996815.1,"2"],[7,"3"]]}'
        + TAIL
    )
    batch = parse_compact_matrix(body)
    assert batch.ts.astype("datetime64[ms]").astype(np.int64).tolist() == [
        1_795_996_815_123,
        1_795_996_815_100,
        7_000,
    ]


def test_layouts_the_scanner_does_not_expect_go_back_to_the_general_reader() -> None:
    series = b'{"metric":{"__name__":"m"},"values":[[1,"1"]]}'
    assert parse_compact_matrix(HEAD + series + TAIL) is not None
    for body in (
        HEAD + b" " + series + TAIL,  # whitespace
        HEAD + series + b'],"warnings":["x"]}}',  # extra keys after the result
        HEAD + series.replace(b"[1,", b"[1.0001,") + TAIL,  # finer than a millisecond
        HEAD + series.replace(b"[1,", b"[1e3,") + TAIL,  # an exponent
        HEAD + series.replace(b'"1"]', b'"x"]') + TAIL,  # a value that is not a number
        HEAD + series.replace(b'"values"', b'"histograms"') + TAIL,  # native histograms
        HEAD + series.replace(b'{"__name__":"m"}', b'{"__name__":1}') + TAIL,  # a label that is not a string
        HEAD + series[:-3] + TAIL,  # truncated
        b'{"status":"error","errorType":"bad_data","error":"x"}',
    ):
        assert parse_compact_matrix(body) is None, body
