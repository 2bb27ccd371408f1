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


def test_chunks_of_capacities_on_threads_give_the_same_hits(monkeypatch, mooncake_conversation):
    trace = read_mooncake(mooncake_conversation)
    caps = default_capacities(trace.num_blocks)
    whole = policy_mrc(trace, "fifo", caps, num_threads=1)
    monkeypatch.setattr(mrc_fifo, "TABLE_BYTES", 8 * trace.num_blocks)  # two capacities per table
    assert_same(policy_mrc(trace, "fifo", caps, num_threads=2), whole)
    assert_same(policy_mrc(trace, "fifo", caps, num_threads=1), whole)


def test_a_block_read_twice_by_one_request_is_not_a_hit_it_inserted_itself():
    # the tail's copy of block 0 is inserted first; the head's lookup saw it absent
    trace = trace_from_paths([[0, 1, 0], [0, 1, 0], [2, 3, 4, 5], [0, 1]])
    caps = np.arange(0, 8)
    assert_same(policy_mrc(trace, "fifo", caps), replayed(trace, caps))


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
