"""Every reader yields the same canonical trace for the same requests; bad input names file:line:field."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard.engine.readers import read_trace

# Three requests: a session of two turns (the second extends the first) and an unrelated one.
REQUESTS = [
    {"t": 0.0, "inp": 40, "out": 5, "ids": [101, 102, 103], "chat": 1, "parent": -1, "turn": 1},
    {"t": 1.5, "inp": 20, "out": 7, "ids": [201, 202], "chat": 2, "parent": -1, "turn": 1},
    {"t": 3.0, "inp": 70, "out": 9, "ids": [101, 102, 103, 104, 105], "chat": 3, "parent": 1, "turn": 2},
]


def write_mooncake(path):
    path.write_text(
        "".join(
            json.dumps(
                {
                    "timestamp": r["t"] * 1000,
                    "input_length": r["inp"],
                    "output_length": r["out"],
                    "hash_ids": r["ids"],
                }
            )
            + "\n"
            for r in REQUESTS
        )
    )
    return path


def write_bailian(path):
    path.write_text(
        "".join(
            json.dumps(
                {
                    "chat_id": r["chat"],
                    "parent_chat_id": r["parent"],
                    "timestamp": 1000 + r["t"],
                    "input_length": r["inp"],
                    "output_length": r["out"],
                    "type": "text",
                    "turn": r["turn"],
                    "hash_ids": r["ids"],
                }
            )
            + "\n"
            for r in REQUESTS
        )
    )
    return path


def write_canonical(path):
    t0 = datetime(2026, 1, 1)
    pq.write_table(
        pa.table(
            {
                "ts": [t0 + timedelta(seconds=r["t"]) for r in REQUESTS],
                "request_id": [str(r["chat"]) for r in REQUESTS],
                "session_id": ["s1", "s2", "s1"],
                "turn": [0, 0, 1],
                "tenant": ["a", "b", "a"],
                "input_tokens": [r["inp"] for r in REQUESTS],
                "output_tokens": [r["out"] for r in REQUESTS],
                "block_tokens": [16] * 3,
                "block_ids": [r["ids"] for r in REQUESTS],
            }
        ),
        path,
    )
    return path


@pytest.fixture
def traces(tmp_path):
    return {
        "mooncake": read_trace(write_mooncake(tmp_path / "m.jsonl"), "mooncake", block_tokens=16),
        "bailian": read_trace(write_bailian(tmp_path / "b.jsonl")),
        "canonical": read_trace(write_canonical(tmp_path / "c.parquet")),
    }


@pytest.mark.parametrize("fmt", ["bailian", "canonical"])
def test_formats_agree_on_blocks_tokens_and_arrivals(traces, fmt):
    ref, other = traces["mooncake"], traces[fmt]
    assert np.array_equal(ref.offsets, other.offsets)
    assert np.array_equal(ref.block_ids, other.block_ids)
    assert np.allclose(ref.arrival_s, other.arrival_s)
    assert np.array_equal(ref.input_tokens, other.input_tokens)
    assert ref.num_blocks == other.num_blocks == 7


def test_dense_ids_keep_shared_prefixes_equal(traces):
    t = traces["mooncake"]
    assert np.array_equal(t.blocks_of(2)[:3], t.blocks_of(0))


@pytest.mark.parametrize("fmt", ["bailian", "canonical"])
def test_sessions_come_from_the_source(traces, fmt):
    t = traces[fmt]
    assert t.session_ids[0] == t.session_ids[2] != t.session_ids[1]
    assert t.turns.tolist() == [0, 0, 1]


def test_sniffing_tells_the_jsonl_formats_apart(tmp_path):
    assert read_trace(write_bailian(tmp_path / "b.jsonl")).session_ids.tolist() == [0, 1, 0]
    assert (read_trace(write_mooncake(tmp_path / "m.jsonl")).session_ids == -1).all()


def test_bad_line_is_named_with_file_line_and_field(tmp_path):
    path = write_mooncake(tmp_path / "m.jsonl")
    path.write_text(
        path.read_text() + '{"timestamp": 5, "input_length": 3, "output_length": 1, "hash_ids": "x"}\n'
    )
    with pytest.raises(ValueError, match=r"m\.jsonl:4: field 'hash_ids'"):
        read_trace(path, "mooncake")


def test_missing_field_and_broken_json_are_named(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text('{"timestamp": 0, "input_length": 3}\n')
    with pytest.raises(ValueError, match=r":1: missing field 'output_length'"):
        read_trace(path, "mooncake")
    path.write_text("{not json\n")
    with pytest.raises(ValueError, match=r":1: not valid JSON"):
        read_trace(path, "mooncake")


def test_azure_csv_is_refused_with_the_reason(traces_dir):
    with pytest.raises(ValueError, match="no prefix hashes"):
        read_trace(traces_dir / "azure-llm-2023" / "AzureLLMInferenceTrace_conv.csv")


def test_real_mooncake_trace_matches_its_readme(mooncake_conversation):
    t = read_trace(mooncake_conversation)
    assert (t.num_requests, t.num_block_accesses, t.num_blocks) == (12_031, 288_500, 182_790)
    assert round(float(t.input_tokens.mean())) == 12_035
