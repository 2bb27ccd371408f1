"""The word-counted stack distances (engine/stack_distance.py) equal an LRU stack kept the obvious way,
access by access: on long chains that cross many 64-time words, re-read runs, broken runs and
blocks listed twice in one request."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.engine.mrc import stack_distance_histograms
from dashboard.engine.plan_math import NEVER, _running_max_distances


def brute_force_distances(requests: list[list[int]]) -> list[int]:
    """Per access, the running-max LRU stack distance (1 = most recent) of its request's leading
    blocks seen before, NEVER from the first block never seen; touches tail first."""
    stack: list[int] = []  # most recent first
    out = []
    for blocks in requests:
        running, seen = 0, True
        for b in blocks:
            seen = seen and b in stack
            if seen:
                running = max(running, stack.index(b) + 1)
            out.append(running if seen else NEVER)
        for b in reversed(blocks):
            if b in stack:
                stack.remove(b)
            stack.insert(0, b)
    return out


def arrays(requests: list[list[int]]) -> tuple[np.ndarray, np.ndarray, int]:
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in requests])]).astype(np.int64)
    ids = np.array([b for r in requests for b in r], dtype=np.int32)
    return offsets, ids, int(ids.max()) + 1 if ids.size else 1


def check(requests: list[list[int]]) -> None:
    offsets, ids, num_blocks = arrays(requests)
    expected = brute_force_distances(requests)
    assert _running_max_distances(offsets, ids, num_blocks).tolist() == expected
    tokens = np.array([16 * len(r) for r in requests], np.int64)
    # every request counted, then every other one (the rest only touch the cache, as a warm-up does)
    for counted in (np.ones(len(requests), bool), np.arange(len(requests)) % 2 == 1):
        block_hist, token_hist = stack_distance_histograms(offsets, ids, tokens, 16, num_blocks, counted)
        reader = np.repeat(np.arange(len(requests)), [len(r) for r in requests])
        hits = [d for d, r in zip(expected, reader, strict=True) if d != NEVER and counted[r]]
        assert block_hist.tolist() == np.bincount(hits, minlength=num_blocks + 1).tolist()
        assert token_hist.tolist() == (16 * block_hist).tolist()


@st.composite
def long_chains(draw):
    """Chains over a prefix tree whose new parts run up to 150 blocks (many 64-time words), with now
    and then a request of arbitrary ids, repeats included."""
    requests, known, next_id = [], [[]], 0
    for _ in range(draw(st.integers(1, 25))):
        if draw(st.integers(0, 5)) == 0:
            blocks = draw(st.lists(st.integers(0, max(next_id, 1)), max_size=80))
        else:
            base = draw(st.sampled_from(known))
            blocks = base[: draw(st.integers(0, len(base)))]
            grow = draw(st.integers(0 if blocks else 1, 150))
            blocks = blocks + list(range(next_id, next_id + grow))
            next_id += grow
            known.append(blocks)
        requests.append(blocks)
    return requests


@settings(max_examples=150, deadline=None)
@given(long_chains())
def test_equal_to_an_lru_stack_kept_access_by_access(requests):
    check(requests)


def test_a_re_read_chain_counts_one_mark_further_back_per_block():
    chain = list(range(200))
    offsets, ids, n = arrays([chain, chain])
    assert _running_max_distances(offsets, ids, n)[200:].tolist() == list(range(1, 201))


def test_a_run_broken_by_a_later_touch_is_counted_again():
    # Block 70 was touched again between the two reads of the chain: the second read's blocks after it
    # are one mark further back than the run alone would say.
    chain = list(range(130))
    check([chain, [0, 1], list(range(60, 80)), chain, [5, 5, 9, 5], chain])
