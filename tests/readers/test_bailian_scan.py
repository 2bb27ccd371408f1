"""The compiled Bailian path reads exactly what the json path reads, and leaves it every file it is unsure of."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.engine.readers import bailian, scan
from tests.readers.twin_jsonl import TRACE_ARRAYS, outcome

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

CHAT_IDS = st.one_of(st.integers(0, 12), st.integers(-3, 2**60), st.sampled_from(['"a7"', "1.0", "true"]))
TYPES = st.sampled_from(['"text"', '"image"', '"file"', '"t\\u0065xt"', '"téxt"', '""', "5", "null"])
TURNS = st.sampled_from(["1", "2", "7", "0", "-1", "1.0", "2147483648", '"2"'])
VALUES = st.sampled_from(["0", "5", "12.25", "1e3", "-1"])


@st.composite
def records(draw, chats: list[str]) -> str:
    """One Bailian line: mostly what real traces hold, now and then a value or field the scan leaves to json."""
    odd = draw(st.integers(0, 9)) == 0
    chat = draw(CHAT_IDS) if odd else str(draw(st.integers(0, 12)))
    parent = draw(st.sampled_from(["-1", "-1", "null", '""', "99", *chats[-3:]] if chats else ["-1"]))
    rec = {
        "chat_id": chat,
        "parent_chat_id": parent,
        "timestamp": draw(VALUES) if odd else str(draw(st.integers(0, 10**6)) / 8),
        "input_length": draw(VALUES) if odd else str(draw(st.integers(0, 4000))),
        "output_length": str(draw(st.integers(0, 500))),
        "type": draw(TYPES) if odd else draw(st.sampled_from(['"text"', '"image"', '"search"'])),
        "turn": draw(TURNS) if odd else str(draw(st.integers(1, 6))),
        "hash_ids": json.dumps(draw(st.lists(st.integers(0, 40), max_size=6))),
    }
    if odd and draw(st.booleans()):
        del rec[draw(st.sampled_from(sorted(rec)))]
    chats.append(chat)
    items = draw(st.permutations(list(rec.items())))
    return "{" + ", ".join(f'"{k}": {v}' for k, v in items) + "}"


@st.composite
def files(draw) -> str:
    chats: list[str] = []
    return "".join(draw(records(chats)) + "\n" for _ in range(draw(st.integers(1, 14))))


SESSIONS = (*TRACE_ARRAYS, "session_ids", "turns", "type_codes", "type_names")


@FAST
@given(text=files(), chunk=st.integers(40, 400), workers=st.integers(1, 3))
def test_the_bailian_reader_reads_any_file_exactly_as_the_json_path(tmp_path_factory, text, chunk, workers):
    """Also in small chunks scanned in parts on threads, where a type first seen in a part sends
    the chunk to the one-thread scan, which numbers it in file order."""
    path = tmp_path_factory.mktemp("bailian") / "b.jsonl"
    path.write_text(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "CHUNK_BYTES", chunk)
        mp.setattr(scan, "WORKERS", workers)
        mp.setattr(scan, "PARALLEL_MIN_BYTES", 0)
        got = outcome(bailian.read_bailian, path, SESSIONS)
    assert got == outcome(bailian._read_json, path, SESSIONS)


def test_a_well_formed_trace_is_read_by_the_scan_with_its_sessions_turns_and_types(tmp_path):
    lines = [
        {
            "chat_id": 10,
            "parent_chat_id": -1,
            "timestamp": 61.5,
            "type": "image",
            "turn": 1,
            "hash_ids": [1, 2],
        },
        {"chat_id": 11, "parent_chat_id": -1, "timestamp": 62.0, "type": "text", "turn": 1, "hash_ids": [7]},
        {
            "chat_id": 12,
            "parent_chat_id": 10,
            "timestamp": 63.25,
            "type": "text",
            "turn": 2,
            "hash_ids": [1, 2, 3],
        },
        {
            "chat_id": 13,
            "parent_chat_id": 12,
            "timestamp": 64.0,
            "type": "image",
            "turn": 3,
            "hash_ids": [1, 2, 3],
        },
    ]
    path = tmp_path / "b.jsonl"
    path.write_text("".join(json.dumps(r | {"input_length": 40, "output_length": 5}) + "\n" for r in lines))
    scanned = bailian._read_scanned(path, 16)
    assert scanned is not None  # not left to the json path
    assert scanned.session_ids.tolist() == [0, 1, 0, 0]  # a root's session: the chats before it
    assert scanned.turns.tolist() == [0, 0, 1, 2] and scanned.type_names == ("image", "text")
    assert scanned.type_codes.tolist() == [0, 1, 1, 0] and scanned.arrival_s.tolist() == [0.0, 0.5, 1.75, 2.5]
    assert outcome(lambda p, block_tokens: scanned, path, SESSIONS) == outcome(
        bailian._read_json, path, SESSIONS
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('"parent_chat_id": 99', "field 'parent_chat_id' 99 names no earlier chat"),
        ('"parent_chat_id": 3', "field 'parent_chat_id' 3 names no earlier chat"),  # the chat comes later
        ('"turn": 0', "field 'turn' must be an integer from 1"),
        ('"turn": 1.0', "field 'turn' must be an integer from 1"),
    ],
)
def test_an_error_the_scan_finds_on_the_arrays_is_the_json_paths_own(tmp_path, line, message):
    rows = [
        f'{{"chat_id": {k}, "parent_chat_id": -1, "timestamp": {k}, "input_length": 40, "output_length": 5, '
        f'"type": "text", "turn": 1, "hash_ids": [{k}]}}'
        for k in range(4)
    ]
    key = line.split(":")[0]
    rows[2] = rows[2].replace(key + ": " + ("-1" if "parent" in key else "1"), line)
    path = tmp_path / "b.jsonl"
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(ValueError, match=rf"b.jsonl:3: {message}"):
        bailian.read_bailian(path)


def test_a_big_bailian_file_is_scanned_in_parts_and_equals_the_json_path(tmp_path):
    """Chunks of 64 kB in three parts each; a type first seen late is numbered in file order."""
    rows = [
        json.dumps(
            {
                "chat_id": k,
                "parent_chat_id": -1 if k % 3 == 0 else k - 1,
                "timestamp": k / 4,
                "input_length": 16 * (k % 5 + 1),
                "output_length": 3,
                "type": "file" if k in (15_000, 19_999) else ("text", "image", "search")[k % 7 % 3],
                "turn": k % 3 + 1,
                "hash_ids": list(range(k - k % 3, k + 1)),
            }
        )
        for k in range(20_000)
    ]
    path = tmp_path / "b.jsonl"
    path.write_text("\n".join(rows) + "\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan, "CHUNK_BYTES", 1 << 16)
        mp.setattr(scan, "PARALLEL_MIN_BYTES", 0)
        mp.setattr(scan, "WORKERS", 3)
        scanned = bailian._read_scanned(path, 16)
    assert scanned is not None and scanned.num_requests == 20_000
    assert np.array_equal(scanned.session_ids, np.arange(20_000) // 3 * 3)
    # NOTE: a type first seen in a later part of a later chunk sends that chunk to one thread, which numbers it next
    assert scanned.type_names == ("text", "image", "search", "file") and scanned.type_codes[15_000] == 3
    assert outcome(lambda p, block_tokens: scanned, path, SESSIONS) == outcome(
        bailian._read_json, path, SESSIONS
    )
