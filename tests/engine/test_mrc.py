"""The one-pass LRU miss-ratio curve equals individual LRU replays at every capacity."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.engine.mrc import lru_mrc
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.readers.mooncake import read_mooncake


def brute_force_lru(requests: list[list[int]], input_tokens: list[int], block_tokens: int, capacity: int):
    """DESIGN.md LRU, written the slow obvious way: (block hits, token hits)."""
    cache: OrderedDict[int, None] = OrderedDict()  # last = most recent
    block_hits = token_hits = 0
    for blocks, tokens in zip(requests, input_tokens, strict=True):
        hits = 0
        for b in blocks:
            if b not in cache:
                break
            hits += 1
        block_hits += hits
        token_hits += min(hits * block_tokens, tokens)
        for b in reversed(blocks):
            cache.pop(b, None)
            cache[b] = None
            while len(cache) > capacity:
                cache.popitem(last=False)
    return block_hits, token_hits


def trace_of(requests: list[list[int]], input_tokens: list[int], block_tokens: int):
    return build_trace(
        arrival_s=np.arange(len(requests), dtype=float),
        block_counts=np.array([len(r) for r in requests]),
        raw_block_ids=np.array([b for r in requests for b in r], dtype=np.int64),
        input_tokens=np.array(input_tokens),
        output_tokens=np.zeros(len(requests)),
        block_tokens=block_tokens,
        source="test",
    )


@st.composite
def chained_requests(draw):
    """Requests built as chains over a small prefix tree, so prefixes are shared and reused."""
    num_requests = draw(st.integers(1, 40))
    requests, tokens, known = [], [], [[]]
    next_id = 0
    for _ in range(num_requests):
        base = list(draw(st.sampled_from(known)))
        cut = draw(st.integers(0, len(base)))
        blocks = base[:cut]
        for _ in range(draw(st.integers(0 if blocks else 1, 4))):
            blocks.append(next_id)
            next_id += 1
        known.append(blocks)
        requests.append(blocks)
        tokens.append(draw(st.integers(max(1, (len(blocks) - 1) * 4 + 1), len(blocks) * 4)))
    return requests, tokens


@settings(max_examples=60, deadline=None)
@given(chained_requests(), st.integers(0, 30))
def test_mrc_equals_brute_force_lru_at_every_capacity(case, capacity):
    requests, tokens = case
    trace = trace_of(requests, tokens, block_tokens=4)
    curve = lru_mrc(trace, np.array([capacity]))
    block_hits, token_hits = brute_force_lru(requests, tokens, 4, capacity)
    assert curve.block_hit_ratio[0] == pytest.approx(block_hits / trace.num_block_accesses)
    assert curve.token_hit_ratio[0] == pytest.approx(token_hits / sum(tokens))


def test_hit_stops_at_the_first_missing_block():
    # Request 2 shares blocks 0 and 2 with request 1 but not block 1: only block 0 counts.
    trace = trace_of([[0, 1, 2], [0, 9, 2]], [12, 12], block_tokens=4)
    curve = lru_mrc(trace, np.array([100]))
    assert curve.block_hit_ratio[0] == pytest.approx(1 / 6)


def test_mooncake_reference_figures_hold(mooncake_conversation):
    # tests/data/traces/mooncake-fast25/README.md: LRU at 1%, 5%, 10%, 25%, 50%, 100% of unique blocks.
    trace = read_mooncake(mooncake_conversation)
    curve = lru_mrc(trace, np.array([1_827, 9_139, 18_279, 45_697, 91_395, 182_790]))
    assert round(curve.block_hit_ratio[2], 6) == 0.278912
    assert round(curve.block_hit_ratio[-1], 6) == 0.366412
    assert np.round(curve.block_hit_ratio, 4).tolist() == [0.0525, 0.1958, 0.2789, 0.3535, 0.3631, 0.3664]
    assert round(curve.token_hit_ratio[-1], 4) == 0.3736


def test_token_curve_at_the_papers_dram_size(mooncake_conversation):
    # README: token-weighted LRU 0.139 / 0.291 / 0.371 at 3M / 10M / 50M tokens (512-token blocks).
    trace = read_mooncake(mooncake_conversation)
    curve = lru_mrc(trace, np.array([3_000_000, 10_000_000, 50_000_000]) // 512)
    assert np.round(curve.token_hit_ratio, 3).tolist() == [0.139, 0.291, 0.371]


def test_curve_is_monotone_in_capacity(mooncake_conversation):
    curve = lru_mrc(read_mooncake(mooncake_conversation))
    assert np.all(np.diff(curve.block_hit_ratio) >= 0)
    assert np.all(np.diff(curve.capacity_blocks) > 0)
