"""Trace statistics: a hand-computed tiny trace, pure-Python twins on random traces, the real Mooncake figures."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from dashboard.core.types import UNKNOWN
from dashboard.engine.readers import read_trace
from dashboard.engine.readers.sessions import infer_sessions
from dashboard.engine.replay import replay_single_cache
from dashboard.engine.trace_stats import (
    ROOT,
    arrival_rate,
    block_pass,
    histogram,
    nice_width,
    prefix_tree,
    session_shape,
    trace_stats,
    unlimited_ceiling,
)
from tests.engine.gen import chained_traces, trace_from_paths

A, B, C, D = 10, 11, 12, 13  # raw ids; dense ids follow first appearance: A=0, B=1, C=2, D=3


@pytest.fixture
def tiny():
    """r0 [A B], r1 [A B C], r2 [A D], r3 [A B]; arrivals 0, 2, 7, 8 s; 4-token blocks."""
    return trace_from_paths([[A, B], [A, B, C], [A, D], [A, B]], gaps_s=[0.0, 2.0, 5.0, 1.0])


# --- pure-Python twins, written from the module docstring's definitions ---


def twin_ceiling(trace) -> tuple[float, float]:
    seen: set[int] = set()
    hits = tokens = 0
    for i in range(trace.num_requests):
        blocks = trace.blocks_of(i).tolist()
        h = 0
        while h < len(blocks) and blocks[h] in seen:
            h += 1
        hits += h
        tokens += min(h * trace.block_tokens, int(trace.input_tokens[i]))
        seen.update(blocks)
    total_tokens = int(trace.input_tokens.sum())
    return hits / max(trace.num_block_accesses, 1), tokens / total_tokens if total_tokens else 0.0


def twin_gaps(trace) -> tuple[list[int], list[float]]:
    last: dict[int, int] = {}
    requests, seconds = [], []
    for i in range(trace.num_requests):
        for b in set(trace.blocks_of(i).tolist()):
            if b in last:
                requests.append(i - last[b])
                seconds.append(float(trace.arrival_s[i] - trace.arrival_s[last[b]]))
            last[b] = i
    return sorted(requests), sorted(seconds)


def twin_sessions(trace) -> tuple[list[int], list[float]]:
    arrivals: dict[int, list[float]] = {}
    for i in range(trace.num_requests):
        if trace.session_ids[i] != UNKNOWN:
            arrivals.setdefault(int(trace.session_ids[i]), []).append(float(trace.arrival_s[i]))
    gaps = [
        b - a for times in arrivals.values() for a, b in zip(sorted(times), sorted(times)[1:], strict=False)
    ]
    return sorted(len(t) for t in arrivals.values()), sorted(gaps)


def twin_tree_counts(trace) -> tuple[dict[int, int], dict[int, int]]:
    holders: dict[int, set[int]] = {}
    parent: dict[int, int] = {}
    for i in range(trace.num_requests):
        blocks = trace.blocks_of(i).tolist()
        for k, b in enumerate(blocks):
            holders.setdefault(b, set()).add(i)
            parent.setdefault(b, blocks[k - 1] if k else ROOT)
    return {b: len(r) for b, r in holders.items()}, parent


# --- the hand-computed trace ---


def test_ceiling_of_the_tiny_trace_is_five_of_nine_blocks(tiny):
    # hits: r0 0, r1 2 (A B), r2 1 (A; D is new), r3 2; tokens: 8 of 11, 4 of 7, min(8, 7) of 7
    assert unlimited_ceiling(tiny, block_pass(tiny)) == (5 / 9, 19 / 32)


def test_reuse_gaps_of_the_tiny_trace_count_from_the_latest_holder(tiny):
    _, _, _, gap_requests, gap_s, _ = block_pass(tiny)
    # A: r0→r1, r1→r2, r2→r3; B: r0→r1, r1→r3 (its latest holder, not r0)
    assert sorted(gap_requests.tolist()) == [1, 1, 1, 1, 2]
    assert sorted(gap_s.tolist()) == [1.0, 2.0, 2.0, 5.0, 6.0]


def test_tiny_trace_sessions_are_inferred_past_the_shared_first_block(tiny):
    stats = trace_stats(tiny)
    # r1 and r3 continue r0 through block B; r2 shares only the first block A: a new session
    assert stats.is_sessions_inferred and stats.num_sessions == 2
    assert stats.turns_per_session.counts[stats.turns_per_session.counts > 0].tolist() == [1, 1]
    assert sorted(stats.turn_gap_s.values[[0, -1]].tolist()) == [2.0, 6.0]


def test_a_chain_all_of_whose_requests_go_on_together_is_one_node():
    # r0, r1 and r2 share blocks 0-1-2; r1 and r2 then 3; only r2 has 4
    trace = trace_from_paths([[0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3, 4]])
    tree = prefix_tree(trace, block_pass(trace), num_nodes=10)
    assert tree.node_ids.tolist() == [2, 3] and tree.parent_ids.tolist() == [ROOT, 2]
    assert tree.depth_blocks.tolist() == [2, 3] and tree.num_requests.tolist() == [3, 2]


def test_tiny_trace_prefix_tree_holds_the_shared_chain(tiny):
    tree = prefix_tree(tiny, block_pass(tiny), num_nodes=10)
    assert tree.node_ids.tolist() == [0, 1]  # A in 4 requests, B in 3; C and D are not shared
    assert tree.parent_ids.tolist() == [ROOT, 0]
    assert tree.num_requests.tolist() == [4, 3]
    assert tree.prefix_tokens.tolist() == [4, 8]
    assert tree.num_requests_total == 4


def test_blocks_per_request_histogram_has_whole_number_bins(tiny):
    hist = histogram(np.diff(tiny.offsets))
    assert hist.edges.tolist() == [1.5, 2.5, 3.5] and hist.counts.tolist() == [3, 1]


def test_arrival_rate_bins_are_round_and_count_every_request(tiny):
    bin_s, starts, rates = arrival_rate(tiny.arrival_s)
    assert bin_s == 0.2  # 8 s / 60 bins = 0.133 s, rounded up to 2 × 10^-1
    assert round(float((rates * bin_s).sum())) == tiny.num_requests
    assert starts[np.flatnonzero(rates)].tolist() == pytest.approx([0.0, 2.0, 7.0, 8.0])


@pytest.mark.parametrize(
    ("raw", "width"), [(0.133, 0.2), (1.0, 1.0), (3.0, 5.0), (58.95, 100.0), (0.0, 0.001)]
)
def test_nice_width_rounds_up_to_one_two_or_five_times_a_power_of_ten(raw, width):
    assert nice_width(raw) == pytest.approx(width)


def test_a_trace_with_its_own_sessions_keeps_them(tiny):
    from dataclasses import replace

    own = replace(tiny, session_ids=np.array([5, 5, 5, 5]), turns=np.arange(4, dtype=np.int32))
    stats = trace_stats(own)
    assert not stats.is_sessions_inferred and stats.num_sessions == 1


@pytest.mark.parametrize("paths", [[], [[]], [[], [A]]], ids=["no requests", "one empty", "empty then one"])
def test_traces_without_blocks_give_zero_ceiling_and_an_empty_tree(paths):
    stats = trace_stats(trace_from_paths(paths))
    assert stats.ceiling_block_hit_ratio == 0.0 and stats.prefix_tree.node_ids.size == 0
    assert stats.reuse_gap_s.num_values == 0 and stats.num_requests == len(paths)


# --- twins on random chained traces ---


@settings(max_examples=60, deadline=None)
@given(chained_traces())
def test_ceiling_matches_its_twin_and_a_cache_that_holds_every_block(trace):
    ceiling = unlimited_ceiling(trace, block_pass(trace))
    assert ceiling == pytest.approx(twin_ceiling(trace), abs=1e-12)
    hits = replay_single_cache(trace, trace.num_blocks)
    assert ceiling[0] == pytest.approx(hits.sum() / trace.num_block_accesses, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(chained_traces())
def test_reuse_gaps_match_their_twin(trace):
    _, _, _, gap_requests, gap_s, _ = block_pass(trace)
    want_requests, want_s = twin_gaps(trace)
    assert sorted(gap_requests.tolist()) == want_requests
    assert sorted(gap_s.tolist()) == pytest.approx(want_s)


@settings(max_examples=60, deadline=None)
@given(chained_traces())
def test_session_shape_matches_its_twin(trace):
    sessions = infer_sessions(trace)
    per_session, gaps = session_shape(sessions)
    want_sizes, want_gaps = twin_sessions(sessions)
    assert sorted(per_session.tolist()) == want_sizes
    assert sorted(gaps.tolist()) == pytest.approx(want_gaps)


@settings(max_examples=60, deadline=None)
@given(chained_traces())
def test_prefix_tree_counts_and_parents_match_their_twin_and_stay_connected(trace):
    tree = prefix_tree(trace, block_pass(trace), num_nodes=8)
    counts, parent = twin_tree_counts(trace)
    # radix tree: a prefix whose every request goes on with one same child is that child's
    passed = {parent[b] for b, c in counts.items() if c >= 2 and parent[b] != ROOT and c == counts[parent[b]]}
    kept = {b: c for b, c in counts.items() if c >= 2 and b not in passed}
    assert tree.num_requests.tolist() == sorted(kept.values(), reverse=True)[:8]  # the most shared first
    chosen = set(tree.node_ids.tolist())
    for node, up, num in zip(
        tree.node_ids.tolist(), tree.parent_ids.tolist(), tree.num_requests.tolist(), strict=True
    ):
        want = parent[node]
        while want in passed:
            want = parent[want]
        assert node in kept and num == counts[node] and up == want
        assert up == ROOT or up in chosen


# --- the real trace ---


def test_mooncake_ceiling_is_the_readmes_infinite_cache_figure(mooncake_conversation):
    stats = trace_stats(read_trace(mooncake_conversation))
    assert round(stats.ceiling_block_hit_ratio, 4) == 0.3664  # README: infinite-cache prefix hit ratio
    assert round(stats.ceiling_token_hit_ratio, 3) == 0.374  # README: token-weighted 37.4%
    assert stats.num_sessions == 7373  # docs/traces.md: session inference on this trace
    assert stats.prefix_tree.num_requests[0] == stats.num_requests  # block 0 is every request's first block
