"""One small trace written in all four formats reads to the same canonical trace."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard.engine.readers import read_trace, sniff_format
from dashboard.engine.readers.openai_chat import render_chat


def words(tag: str, count: int) -> str:
    """count distinct 1-token words (each at most 4 characters)."""
    return " ".join(f"{tag}{k:02d}" for k in range(count))


# Each message renders to <|role|> + 14 words + <|end|> = 16 tokens = one 16-token block.
SYS_A, USER_A1, REPLY_A1, USER_A2 = (
    {"role": r, "content": words(t, 14)}
    for r, t in (("system", "s"), ("user", "a"), ("assistant", "r"), ("user", "b"))
)
SYS_B, USER_B1 = {"role": "system", "content": words("t", 14)}, {"role": "user", "content": words("c", 14)}
CHATS = [  # (arrival s, session, turn, prompt messages, output tokens, raw block ids)
    (0.0, "s1", 0, [SYS_A, USER_A1, USER_A1], 5, [11, 12, 13]),
    (1.5, "s2", 0, [SYS_B, USER_B1], 7, [21, 22]),
    (3.0, "s1", 1, [SYS_A, USER_A1, USER_A1, REPLY_A1, USER_A2], 9, [11, 12, 13, 14, 15]),
]
T0 = 1_767_225_600.0  # 2026-01-01T00:00:00Z


def write_all(tmp_path):
    """The same requests as Mooncake, Bailian, requests.parquet and OpenAI chat files."""
    tokens = [len(render_chat(c[3])) for c in CHATS]
    chat_ids = {0: 100, 1: 200, 2: 300}
    parents = {0: -1, 1: -1, 2: 100}
    paths = {
        f: tmp_path / n
        for f, n in (
            ("mooncake", "m.jsonl"),
            ("bailian", "b.jsonl"),
            ("canonical", "c.parquet"),
            ("openai-chat", "o.jsonl"),
        )
    }
    paths["mooncake"].write_text(
        "".join(
            json.dumps(
                {
                    "timestamp": int(t * 1000),
                    "input_length": n,
                    "output_length": o,
                    "hash_ids": ids,
                }
            )
            + "\n"
            for (t, _, _, _, o, ids), n in zip(CHATS, tokens, strict=True)
        )
    )
    paths["bailian"].write_text(
        "".join(
            json.dumps(
                {
                    "chat_id": chat_ids[k],
                    "parent_chat_id": parents[k],
                    "timestamp": T0 + t,
                    "input_length": n,
                    "output_length": o,
                    "type": "text",
                    "turn": turn + 1,
                    "hash_ids": ids,
                }
            )
            + "\n"
            for k, ((t, _, turn, _, o, ids), n) in enumerate(zip(CHATS, tokens, strict=True))
        )
    )
    start = datetime.fromtimestamp(T0, UTC).replace(tzinfo=None)
    pq.write_table(
        pa.table(
            {
                "ts": [start + timedelta(seconds=c[0]) for c in CHATS],
                "request_id": ["r0", "r1", "r2"],
                "session_id": [c[1] for c in CHATS],
                "turn": [c[2] for c in CHATS],
                "tenant": ["x", "x", "x"],
                "input_tokens": tokens,
                "output_tokens": [c[4] for c in CHATS],
                "block_tokens": [16] * 3,
                "block_ids": [c[5] for c in CHATS],
            }
        ),
        paths["canonical"],
    )
    paths["openai-chat"].write_text(
        "".join(
            json.dumps(
                {
                    "session_id": s,
                    "timestamp": datetime.fromtimestamp(T0 + t, UTC).isoformat(),
                    "messages": msgs,
                    "output_tokens": o,
                }
            )
            + "\n"
            for t, s, _, msgs, o, _ in CHATS
        )
    )
    return paths


@pytest.fixture
def traces(tmp_path):
    paths = write_all(tmp_path)
    return {fmt: read_trace(path, block_tokens=16) for fmt, path in paths.items()}


def test_the_chat_prompts_are_whole_blocks_as_designed():
    assert [len(render_chat(c[3])) for c in CHATS] == [48, 32, 80]


@pytest.mark.parametrize("fmt", ["bailian", "canonical", "openai-chat"])
def test_every_format_yields_the_mooncake_block_structure_tokens_and_arrivals(traces, fmt):
    ref, other = traces["mooncake"], traces[fmt]
    assert np.array_equal(ref.offsets, other.offsets)
    assert np.array_equal(ref.block_ids, other.block_ids)
    assert ref.num_blocks == other.num_blocks == 7
    assert np.allclose(ref.arrival_s, other.arrival_s)
    assert np.array_equal(ref.input_tokens, other.input_tokens)
    assert np.array_equal(ref.output_tokens, other.output_tokens)
    assert other.block_tokens == 16


@pytest.mark.parametrize("fmt", ["bailian", "canonical", "openai-chat"])
def test_formats_with_sessions_agree_on_them(traces, fmt):
    assert traces[fmt].session_ids.tolist() == traces["bailian"].session_ids.tolist() == [0, 1, 0]


def test_sniffing_picks_each_format(tmp_path):
    paths = write_all(tmp_path)
    assert {fmt: sniff_format(path) for fmt, path in paths.items()} == {fmt: fmt for fmt in paths}
