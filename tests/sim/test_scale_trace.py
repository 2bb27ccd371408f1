"""The sample chat workload at scale: deterministic, the size asked, and read back exactly from its JSONL."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dashboard.engine.readers.canonical import dense_block_ids
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.sim.scale_trace import (
    generate_scale_columns,
    scale_spec,
    scale_trace_file,
    write_mooncake_jsonl,
)
from dashboard.sim.workload import WorkloadSpec

SIZE = 300_000


@pytest.fixture(scope="module")
def cols():
    return generate_scale_columns(7, SIZE)


@pytest.fixture(scope="module")
def written(cols, tmp_path_factory):
    path = tmp_path_factory.mktemp("scale") / "chat.jsonl"
    write_mooncake_jsonl(path, cols)
    return path


def test_the_same_seed_gives_the_same_trace_and_another_seed_another(cols):
    again, other = generate_scale_columns(7, SIZE), generate_scale_columns(8, SIZE)
    for name in ("arrival_ms", "input_tokens", "output_tokens", "offsets", "hash_ids"):
        assert np.array_equal(getattr(cols, name), getattr(again, name)), name
    assert not np.array_equal(cols.hash_ids[:1000], other.hash_ids[:1000])


def test_it_stops_at_the_first_request_that_reaches_the_asked_accesses(cols):
    last = int(cols.offsets[-1] - cols.offsets[-2])
    assert cols.num_block_accesses >= SIZE > cols.num_block_accesses - last


def test_prefixes_keep_their_token_length_at_smaller_blocks():
    sample = WorkloadSpec()
    spec = scale_spec(16)
    assert spec.block_tokens == 16
    assert spec.system_blocks == (4 * sample.system_blocks[0], 4 * sample.system_blocks[1])
    assert spec.fewshot_blocks == (4 * sample.fewshot_blocks[0], 4 * sample.fewshot_blocks[1])


def test_requests_arrive_in_order_and_prompts_fill_their_blocks(cols):
    assert np.all(np.diff(cols.arrival_ms) >= 0)
    blocks = np.diff(cols.offsets)
    # Every block but a prompt's partial last one is full: 16 × (blocks − 1) < input tokens ≤ 16 × blocks.
    assert np.all(16 * (blocks - 1) < cols.input_tokens) and np.all(cols.input_tokens <= 16 * blocks)


def test_every_request_opens_with_one_of_the_tenants_system_prompts(cols):
    assert np.unique(cols.hash_ids[cols.offsets[:-1]]).size == scale_spec().num_tenants


def test_sessions_run_several_turns_each_extending_the_last(cols):
    turns = np.bincount(cols.session_ids)
    turns = turns[turns > 0]
    assert turns.max() >= 10 and 3.0 < turns.mean() < 9.0
    # A follow-up turn repeats its session's previous prompt, all but that prompt's partial block.
    ids = [cols.hash_ids[a:b] for a, b in zip(cols.offsets[:-1], cols.offsets[1:], strict=True)]
    previous: dict[int, np.ndarray] = {}
    checked = 0
    for s, blocks in zip(cols.session_ids.tolist(), ids, strict=True):
        if s in previous:
            earlier = previous[s]
            assert blocks.size > earlier.size - 1
            assert np.array_equal(blocks[: earlier.size - 1], earlier[:-1])
            checked += 1
        previous[s] = blocks
    assert checked > len(previous)


def test_the_jsonl_is_json_dumps_text_and_reads_back_exactly(cols, written):
    with written.open() as fh:
        lines = [fh.readline() for _ in range(50)]
    assert all(json.dumps(json.loads(line)) + "\n" == line for line in lines)
    trace = read_mooncake(written, block_tokens=16)
    assert np.array_equal(trace.arrival_s, cols.arrival_ms / 1000.0)
    assert np.array_equal(trace.offsets, cols.offsets)
    assert np.array_equal(trace.input_tokens, cols.input_tokens)
    assert np.array_equal(trace.output_tokens, cols.output_tokens)
    dense, num_blocks = dense_block_ids(cols.hash_ids)
    assert np.array_equal(trace.block_ids, dense) and trace.num_blocks == num_blocks


def test_the_cached_file_is_written_once(tmp_path):
    path = scale_trace_file(seed=1, num_accesses=20_000, cache_dir=tmp_path)
    first = path.stat().st_mtime_ns
    assert scale_trace_file(seed=1, num_accesses=20_000, cache_dir=tmp_path) == path
    assert path.stat().st_mtime_ns == first
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind
