"""OpenAI-style chat logs: deterministic approximate tokens, chained block ids, file:line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dashboard.engine.readers import read_trace
from dashboard.engine.readers.openai_chat import chained_block_ids, render_chat, tokenize


def write_lines(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_tokens_are_word_pieces_of_at_most_four_characters():
    assert tokenize("Hello, world! internationalization") == [
        "Hell",
        "o",
        ",",
        "worl",
        "d",
        "!",
        "inte",
        "rnat",
        "iona",
        "liza",
        "tion",
    ]


def test_equal_prefixes_give_equal_block_ids_and_a_change_breaks_the_chain():
    base = [str(k) for k in range(40)]
    ids = chained_block_ids(base, 16)
    assert chained_block_ids(base + ["x"] * 30, 16)[:2] == ids[:2]
    changed = chained_block_ids(["y"] + base[1:], 16)
    assert all(a != b for a, b in zip(changed, ids, strict=True))
    assert len(ids) == 3  # two full blocks and a partial one


def test_a_later_turn_extends_the_earlier_prompt(tmp_path):
    first = [
        {"role": "system", "content": "You are terse. " * 10},
        {"role": "user", "content": "Name a prime. " * 6},
    ]
    second = first + [
        {"role": "assistant", "content": "Seven."},
        {"role": "user", "content": "Another? " * 12},
    ]
    t = read_trace(
        write_lines(tmp_path / "c.jsonl", [{"messages": first}, {"messages": second}]), block_tokens=8
    )
    full_blocks = len(render_chat(first)) // 8
    assert np.array_equal(t.blocks_of(1)[:full_blocks], t.blocks_of(0)[:full_blocks])
    assert t.input_tokens.tolist() == [len(render_chat(first)), len(render_chat(second))]


def test_a_final_assistant_message_is_the_reply_not_the_prompt(tmp_path):
    msgs = [{"role": "user", "content": "hi there"}, {"role": "assistant", "content": "hey to you"}]
    t = read_trace(write_lines(tmp_path / "c.jsonl", [{"messages": msgs}]))
    assert t.input_tokens.tolist() == [len(render_chat(msgs[:1]))]
    assert t.output_tokens.tolist() == [3]


def test_timestamps_may_be_seconds_or_iso_text_and_sessions_are_coded(tmp_path):
    rows = [
        {
            "messages": [{"role": "user", "content": "a"}],
            "timestamp": "2026-01-01T00:00:10Z",
            "session_id": "x",
        },
        {
            "messages": [{"role": "user", "content": "b"}],
            "timestamp": "2026-01-01T00:00:00",
            "session_id": "y",
        },
        {"messages": [{"role": "user", "content": "c"}], "timestamp": 1_767_225_605, "session_id": "x"},
    ]
    t = read_trace(write_lines(tmp_path / "c.jsonl", rows))
    assert t.arrival_s.tolist() == [0.0, 5.0, 10.0]
    assert t.session_ids.tolist() == [1, 0, 0]


def test_without_timestamps_requests_are_one_second_apart_and_sessions_unknown(tmp_path):
    rows = [{"messages": [{"role": "user", "content": w}]} for w in ("a", "b", "c")]
    t = read_trace(write_lines(tmp_path / "c.jsonl", rows))
    assert t.arrival_s.tolist() == [0.0, 1.0, 2.0]
    assert (t.session_ids == -1).all()


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"messages": [], "timestamp": 2}, "messages"),
        ({"messages": [{"role": "user"}], "timestamp": 2}, r"messages\[0\]"),
        (
            {"messages": [{"role": "user", "content": "x"}], "timestamp": 2, "output_tokens": -3},
            "output_tokens",
        ),
        ({"messages": [{"role": "user", "content": "x"}], "timestamp": "yesterday"}, "timestamp"),
        ({"messages": [{"role": "user", "content": "x"}]}, "timestamp"),
    ],
)
def test_bad_lines_are_named_with_file_line_and_field(tmp_path, row, field):
    good = {"messages": [{"role": "user", "content": "ok"}], "timestamp": 1}
    path = write_lines(tmp_path / "c.jsonl", [good, row])
    with pytest.raises(ValueError, match=rf"c\.jsonl:2: field '{field}"):
        read_trace(path, "openai-chat")


def test_an_empty_log_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no requests"):
        read_trace(write_lines(tmp_path / "c.jsonl", []), "openai-chat")
