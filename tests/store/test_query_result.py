"""Prometheus query-API answers stored from their raw JSON, exactly and once, whatever their layout."""

from __future__ import annotations

import json
import math

import pytest

from dashboard.ingest.matrix_answer import parse_compact_matrix, parse_matrix_answer
from dashboard.store import writes
from dashboard.store.writes import write_query_result, write_query_results

T = 1_795_996_815.123  # a millisecond timestamp as Prometheus renders it


@pytest.fixture(params=["compact", "spaced"])
def answer(request):
    """Build an answer body: Prometheus's own compact encoding (scanned, ingest/matrix_answer.py)
    or the same JSON with spaces (read by DuckDB); both must store the same."""
    separators = (",", ":") if request.param == "compact" else (", ", ": ")

    def build(*series: dict) -> bytes:
        body = {"status": "success", "data": {"resultType": "matrix", "result": list(series)}}
        return json.dumps(body, separators=separators).encode()

    return build


def write_answer(store, body: bytes, where: str = "query result") -> int:
    """Store an answer as the collector does: parsed by ingest (scanned when the layout is Prometheus's own)."""
    return write_query_result(store, parse_matrix_answer(body, where), where)


def rows(store) -> list[tuple]:
    return (
        store.cursor()
        .execute(
            "SELECT s.metric, s.labels, s.pod, s.le, epoch_ms(x.ts), x.value FROM samples x JOIN series s USING (series_id) "
            "ORDER BY s.metric, s.le, x.ts"
        )
        .fetchall()
    )


def test_values_labels_and_timestamps_arrive_exactly(store, answer):
    body = answer(
        {
            "metric": {"__name__": "ttft_bucket", "le": "+Inf", "pod": "vllm-0"},
            "values": [[T, "3"], [T + 15, "+Inf"]],
        },
        {
            "metric": {"__name__": "ttft_bucket", "le": "0.5", "pod": "vllm-0"},
            "values": [[T, "-Inf"], [T + 15, "NaN"]],
        },
        {"metric": {"__name__": "hits_total", "instance": "10.0.0.5:8000"}, "values": [[T, "1e3"]]},
    )
    assert write_answer(store, body) == 5
    got = rows(store)
    assert got[0] == (
        "hits_total",
        {"instance": "10.0.0.5:8000", "pod": "10.0.0.5:8000"},
        "10.0.0.5:8000",
        None,
        1_795_996_815_123,
        1000.0,
    )
    assert [r[3] for r in got[1:]] == [0.5, 0.5, math.inf, math.inf]
    assert got[1][5] == -math.inf and math.isnan(got[2][5])
    assert got[3][1]["le"] == "+Inf" and got[3][5] == 3.0 and got[4][5] == math.inf
    assert got[4][4] == 1_795_996_830_123


def test_the_same_answer_twice_is_stored_once(store, answer):
    body = answer({"metric": {"__name__": "hits_total", "pod": "a"}, "values": [[T, "1"], [T + 15, "2"]]})
    assert write_answer(store, body) == 2
    assert write_answer(store, body) == 0
    overlapping = answer(
        {"metric": {"__name__": "hits_total", "pod": "a"}, "values": [[T + 15, "2"], [T + 30, "3"]]}
    )
    assert write_answer(store, overlapping) == 1
    assert len(rows(store)) == 3


def test_an_empty_answer_stores_nothing(store, answer):
    assert write_answer(store, answer()) == 0


def test_a_body_that_is_not_an_answer_is_refused_and_changes_nothing(store, answer):
    write_answer(store, answer({"metric": {"__name__": "hits_total", "pod": "a"}, "values": [[T, "1"]]}))
    with pytest.raises(ValueError, match="prom-test: not a Prometheus API answer"):
        write_answer(store, answer({"metric": {}, "values": [[1, "x"]]}), where="prom-test")
    with pytest.raises(ValueError, match="not a Prometheus API answer"):
        write_answer(store, b"<html>proxy error</html>")
    assert len(rows(store)) == 1


def test_two_series_of_one_key_in_an_answer_store_a_shared_sample_once(store, answer):
    # The second target has no pod label, so it gets pod = instance and the same series key.
    body = answer(
        {"metric": {"__name__": "hits_total", "instance": "x", "pod": "x"}, "values": [[T, "1"]]},
        {"metric": {"__name__": "hits_total", "instance": "x"}, "values": [[T, "1"], [T + 15, "2"]]},
    )
    assert write_answer(store, body) == 2
    assert [r[4:] for r in rows(store)] == [(1_795_996_815_123, 1.0), (1_795_996_830_123, 2.0)]


def test_only_the_compact_encoding_is_scanned_and_every_layout_stores_the_same(store, answer):
    body = answer({"metric": {"__name__": "m", "pod": "a"}, "values": [[T, "1"]]})
    assert (parse_compact_matrix(body) is not None) == (b", " not in body)
    assert write_answer(store, body) == 1


def test_answers_written_together_are_one_transaction(store, answer):
    first = answer({"metric": {"__name__": "hits_total", "pod": "a"}, "values": [[T, "1"], [T + 15, "2"]]})
    second = answer({"metric": {"__name__": "hits_total", "pod": "a"}, "values": [[T + 30, "3"]]})
    group = [(parse_matrix_answer(b, f"chunk {i}"), f"chunk {i}") for i, b in enumerate((first, second), 1)]
    assert write_query_results(store, group) == 3
    third = answer({"metric": {"__name__": "hits_total", "pod": "b"}, "values": [[T, "1"]]})
    with pytest.raises(ValueError, match="chunk 4: not a Prometheus API answer"):
        # NOTE: as the collector does: a group is parsed whole before any of it is written
        group = [
            (parse_matrix_answer(b, f"chunk {i}"), f"chunk {i}") for i, b in ((3, third), (4, b"<html>"))
        ]
        write_query_results(store, group)
    assert len(rows(store)) == 3  # chunk 3's sample went with chunk 4's failure


def test_a_series_registered_by_a_rolled_back_write_is_registered_again_by_the_next(store, answer):
    # NOTE: a store keeps the ids of the series its committed writes met and skips registering
    # them again; ids handed out inside a write that then failed must not be kept.
    new = answer({"metric": {"__name__": "hits_total", "pod": "c"}, "values": [[T, "1"]]})
    nameless = answer({"metric": {"pod": "c"}, "values": [[T, "2"]]})
    group = [(parse_matrix_answer(b, f"chunk {i}"), f"chunk {i}") for i, b in enumerate((new, nameless), 1)]
    with pytest.raises(ValueError, match="chunk 2: a sample has no metric name"):
        write_query_results(store, group)
    assert rows(store) == []
    assert write_answer(store, new) == 1
    later = answer({"metric": {"__name__": "hits_total", "pod": "c"}, "values": [[T + 15, "3"]]})
    assert write_answer(store, later) == 1
    assert [(r[0], r[2], r[4]) for r in rows(store)] == [
        ("hits_total", "c", 1_795_996_815_123),
        ("hits_total", "c", 1_795_996_830_123),
    ]


def test_the_series_ids_a_store_remembers_stay_bounded(store, answer, monkeypatch):
    monkeypatch.setattr(writes, "MAX_KNOWN_SERIES", 3)
    for pod in "abcde":  # NOTE: pods that come and go, as a Deployment's do
        body = answer(*({"metric": {"__name__": m, "pod": pod}, "values": [[T, "1"]]} for m in ("x", "y")))
        assert write_answer(store, body) == 2
        assert len(store.known_series) <= 3
    again = answer({"metric": {"__name__": "x", "pod": "a"}, "values": [[T + 15, "2"]]})  # forgotten, stored
    assert write_answer(store, again) == 1
    assert len(rows(store)) == 11
    assert store.cursor().execute("SELECT count(*) FROM series").fetchall() == [(10,)]
