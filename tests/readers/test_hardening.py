"""Bad Mooncake and Bailian input is refused with file:line and the field, never half-read."""

from __future__ import annotations

import json

import pytest

from dashboard.engine.readers import read_trace

MOONCAKE_OK = {"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1]}
BAILIAN_OK = {
    "chat_id": 1,
    "parent_chat_id": -1,
    "timestamp": 5.0,
    "input_length": 10,
    "output_length": 1,
    "type": "text",
    "turn": 1,
    "hash_ids": [1],
}


def write(path, *lines):
    path.write_bytes(
        b"".join((ln if isinstance(ln, bytes) else json.dumps(ln).encode()) + b"\n" for ln in lines)
    )
    return path


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({**MOONCAKE_OK, "hash_ids": [2**64]}, "hash_ids"),
        ({**MOONCAKE_OK, "hash_ids": [True]}, "hash_ids"),
        ({**MOONCAKE_OK, "input_length": -1}, "input_length"),
        ({**MOONCAKE_OK, "timestamp": float("nan")}, "timestamp"),
    ],
)
def test_bad_mooncake_values_name_the_field(tmp_path, bad, field):
    with pytest.raises(ValueError, match=rf"m\.jsonl:2: field '{field}'"):
        read_trace(write(tmp_path / "m.jsonl", MOONCAKE_OK, bad), "mooncake")


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({**BAILIAN_OK, "chat_id": 2, "turn": 0}, "turn"),
        ({**BAILIAN_OK, "chat_id": 2, "turn": "two"}, "turn"),
        ({**BAILIAN_OK, "chat_id": 2, "parent_chat_id": 99}, "parent_chat_id"),
        ({**BAILIAN_OK, "chat_id": [2]}, "chat_id"),
    ],
)
def test_bad_bailian_values_name_the_field(tmp_path, bad, field):
    with pytest.raises(ValueError, match=rf"b\.jsonl:2: fields? '{field}"):
        read_trace(write(tmp_path / "b.jsonl", BAILIAN_OK, bad), "bailian")


def test_non_utf8_bytes_are_named_by_line(tmp_path):
    with pytest.raises(ValueError, match=r"m\.jsonl:2: not UTF-8"):
        read_trace(write(tmp_path / "m.jsonl", MOONCAKE_OK, b'{"timestamp": "\xff"}'), "mooncake")


@pytest.mark.parametrize("fmt", ["mooncake", "bailian", "openai-chat"])
def test_an_empty_file_is_refused(tmp_path, fmt):
    (tmp_path / "e.jsonl").write_text("\n\n")
    with pytest.raises(ValueError, match=r"e\.jsonl: no requests"):
        read_trace(tmp_path / "e.jsonl", fmt)


def test_bailian_arrivals_start_at_zero_even_if_the_file_is_not_in_time_order(tmp_path):
    later = {**BAILIAN_OK, "chat_id": 2, "timestamp": 9.0}
    earlier = {**BAILIAN_OK, "chat_id": 3, "timestamp": 2.0}
    t = read_trace(write(tmp_path / "b.jsonl", later, earlier), "bailian")
    assert t.arrival_s.tolist() == [0.0, 7.0]


def test_an_unrecognised_jsonl_file_asks_for_a_format(tmp_path):
    with pytest.raises(ValueError, match=r"x\.jsonl:1: cannot tell the trace format; pass --format"):
        read_trace(write(tmp_path / "x.jsonl", {"prompt": "hi"}))
