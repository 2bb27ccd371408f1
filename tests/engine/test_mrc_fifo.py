"""FIFO's exact curve from passes over the trace equals one replay per capacity, hit for hit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.core.types import Trace
from dashboard.engine import mrc_fifo
from dashboard.engine.mrc import curve_from_hits, default_capacities, in_passes, policy_mrc, replay_each
from dashboard.engine.mrc_sampled import sampled_policy_mrc
from dashboard.engine.readers.mooncake import read_mooncake
from tests.engine.gen import belady_trace, chained_traces, trace_from_paths


def replayed(trace: Trace, caps: np.ndarray):
    """The curve from one FIFO replay per capacity (the sweep the passes replace)."""
    return curve_from_hits(trace, caps, replay_each(trace, caps, "fifo"))


def assert_same(curve, swept) -> None:
    assert curve.capacity_blocks.tolist() == swept.capacity_blocks.tolist()
    assert curve.block_hit_ratio.tolist() == swept.block_hit_ratio.tolist()
    assert curve.token_hit_ratio.tolist() == swept.token_hit_ratio.tolist()


@pytest.mark.parametrize("name", ["conversation", "synthetic"])
def test_passes_equal_replays_at_every_capacity_of_the_mooncake_traces(
    name, mooncake_conversation, mooncake_synthetic
):
    trace = read_mooncake(mooncake_conversation if name == "conversation" else mooncake_synthetic)
    caps = np.concatenate([[0, 1, 2, 7], default_capacities(trace.num_blocks), [trace.num_blocks + 9]])
    assert_same(policy_mrc(trace, "fifo", caps), replayed(trace, caps))


def test_a_larger_cache_missing_more_is_reproduced():
    # Belady's anomaly: FIFO has no inclusion property, so each capacity keeps its own stamps
    trace = belady_trace()
    caps = np.arange(trace.num_blocks + 1)
    curve = policy_mrc(trace, "fifo", caps)
    assert curve.block_hit_ratio[64] < curve.block_hit_ratio[63]
    assert_same(curve, replayed(trace, caps))


def test_groups_of_capacities_on_threads_give_the_same_hits(mooncake_conversation):
    trace = read_mooncake(mooncake_conversation)
    caps = np.unique(np.linspace(0, trace.num_blocks, 2 * mrc_fifo.LANES + 7).astype(np.int64))
    assert caps.size > 2 * mrc_fifo.LANES  # three passes, the last one padded
    swept = replayed(trace, caps)
    assert_same(policy_mrc(trace, "fifo", caps, num_threads=2), swept)
    assert_same(policy_mrc(trace, "fifo", caps, num_threads=1), swept)


def held_at_once(trace: Trace) -> int:
    """The most blocks between their first and last reads at once, counted access by access."""
    ids = trace.block_ids.tolist()
    last = {b: a for a, b in enumerate(ids)}
    # NOTE: requests are visited tail first, so a row lent within a request follows that order
    order = [
        a
        for r in range(trace.num_requests)
        for a in range(trace.offsets[r + 1] - 1, trace.offsets[r] - 1, -1)
    ]
    held, most = set(), 0
    for a in order:
        b = ids[a]
        if last[b] != a:
            held.add(b)
            most = max(most, len(held))
        else:
            held.discard(b)
    return most


def test_the_table_holds_only_the_blocks_between_their_first_and_last_reads(mooncake_conversation):
    trace = read_mooncake(mooncake_conversation)
    caps = default_capacities(trace.num_blocks)
    passes = mrc_fifo.fifo_hits(trace, caps)
    assert passes.held_blocks == held_at_once(trace)
    assert passes.held_blocks < trace.num_blocks / 10


def test_a_table_too_small_for_the_blocks_held_falls_back_to_a_replay_per_capacity(
    monkeypatch, mooncake_conversation
):
    trace = read_mooncake(mooncake_conversation)
    caps = default_capacities(trace.num_blocks, 8)
    row_bytes = mrc_fifo.LANES * mrc_fifo.STAMP_BYTES
    held = held_at_once(trace)
    assert mrc_fifo.fifo_hits(trace, caps, 1, table_bytes=(held + 1) * row_bytes) is not None  # + scratch row
    assert mrc_fifo.fifo_hits(trace, caps, 1, table_bytes=held * row_bytes) is None
    monkeypatch.setattr(mrc_fifo, "TABLE_BYTES", held * row_bytes)
    assert_same(policy_mrc(trace, "fifo", caps, num_threads=1), replayed(trace, caps))


def test_a_block_read_twice_by_one_request_is_not_a_hit_it_inserted_itself():
    # the tail's copy of block 0 is inserted first; the head's lookup saw it absent
    trace = trace_from_paths([[0, 1, 0], [0, 1, 0], [2, 3, 4, 5], [0, 1]])
    caps = np.arange(0, 8)
    assert_same(policy_mrc(trace, "fifo", caps), replayed(trace, caps))


def test_a_request_longer_than_a_chunk_of_accesses_is_visited_whole():
    # NOTE: rows are lent a chunk at a time; one request past CHUNK_ACCESSES is a chunk of its own
    long = list(range(mrc_fifo.CHUNK_ACCESSES + 500))
    trace = trace_from_paths([long[:9], long, [7, 8, 9], long[:100], long, [1, 2]])
    caps = np.array([0, 5, 100, len(long) - 1, len(long), len(long) + 3])
    assert_same(policy_mrc(trace, "fifo", caps), replayed(trace, caps))


def test_a_pass_refuses_other_than_lanes_capacities():
    # NOTE: its vector state loads LANES capacities at once; fewer would read past the array
    trace = trace_from_paths([[0, 1], [0, 1]])
    last = mrc_fifo._last_reads(trace.block_ids, trace.num_blocks)
    with pytest.raises(ValueError, match="LANES capacities"):
        mrc_fifo._fifo_pass(
            trace.offsets,
            trace.block_ids,
            trace.input_tokens,
            trace.block_tokens,
            last,
            np.ones(5, np.int32),
            8,
        )


def test_a_trace_past_the_stamps_range_is_replayed_per_capacity(monkeypatch, mooncake_synthetic):
    trace = read_mooncake(mooncake_synthetic)
    caps = default_capacities(trace.num_blocks, 8)
    monkeypatch.setattr(mrc_fifo, "MAX_STAMP", trace.num_block_accesses)
    assert not mrc_fifo.fits(trace)
    assert_same(policy_mrc(trace, "fifo", caps), replayed(trace, caps))


def test_fifo_curves_are_never_sampled(mooncake_synthetic):
    trace = read_mooncake(mooncake_synthetic)
    caps = default_capacities(trace.num_blocks, 8)
    sampled = sampled_policy_mrc(trace, "fifo", caps)
    assert in_passes("fifo") and not in_passes("s3fifo")
    assert sampled.is_exact and sampled.label() == "fifo (exact)"
    assert_same(sampled.curve, replayed(trace, caps))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trace=chained_traces(max_requests=30, max_len=10), top=st.integers(0, 25))
def test_passes_equal_replays_on_random_chained_traces(trace: Trace, top: int) -> None:
    caps = np.arange(0, top + 1)
    assert_same(policy_mrc(trace, "fifo", caps), replayed(trace, caps))
