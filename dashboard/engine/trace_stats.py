"""What a trace offers a prefix cache, in numpy: arrivals, sizes, reuse gaps, ceiling, sessions, shared prefixes.

Definitions (tests/engine/test_trace_stats.py holds a pure-Python twin of each):
- a block *reuse* is a request holding a block that an earlier request held; its gap is the time
  and the number of requests since the **latest** earlier request holding it (a block listed
  twice in one request counts once);
- the *unlimited-cache ceiling* is the prefix hit ratio of a cache that never evicts: a request's
  hit is its number of leading blocks held by any earlier request (DESIGN.md's prefix hit);
- sessions are the trace's own, or inferred (readers/sessions.py) when it has none; the gap
  between turns is between consecutive arrivals of one session;
- a prefix-tree node is a block id (a chained prefix); its count is the number of requests
  whose prompt holds that prefix, and its parent the block before it.
"""

from __future__ import annotations

import numpy as np

from dashboard.core.trace_stats import ROOT, Cdf, Histogram, PrefixTree, TraceStats
from dashboard.core.types import UNKNOWN, Trace
from dashboard.engine.readers.sessions import infer_sessions

CDF_FRACTIONS = np.linspace(0.0, 1.0, 101)
NUM_RATE_BINS = 60
MAX_BINS = 50


def trace_stats(trace: Trace, num_tree_nodes: int = 60) -> TraceStats:
    """All of the page's statistics of trace (one sort of the (block, request) pairs shared by three)."""
    pair_blocks, pair_reqs = distinct_pairs(trace)
    gap_requests, gap_s = reuse_gaps(trace, pair_blocks, pair_reqs)
    block_ratio, token_ratio = unlimited_ceiling(trace, pair_blocks, pair_reqs)
    sessions = infer_sessions(trace)
    is_inferred = bool(np.all(trace.session_ids == UNKNOWN)) and trace.num_requests > 0
    per_session, turn_gaps = session_shape(sessions)
    bin_s, starts, rates = arrival_rate(trace.arrival_s)
    return TraceStats(
        num_requests=trace.num_requests,
        num_block_accesses=trace.num_block_accesses,
        num_blocks=trace.num_blocks,
        block_tokens=trace.block_tokens,
        duration_s=float(trace.arrival_s[-1]) if trace.num_requests else 0.0,
        rate_bin_s=bin_s,
        rate_bin_start_s=starts,
        arrival_rate_per_s=rates,
        prompt_tokens=histogram(trace.input_tokens),
        blocks_per_request=histogram(np.diff(trace.offsets)),
        reuse_gap_s=cdf(gap_s),
        reuse_gap_requests=cdf(gap_requests),
        ceiling_block_hit_ratio=block_ratio,
        ceiling_token_hit_ratio=token_ratio,
        is_sessions_inferred=is_inferred,
        num_sessions=int(per_session.size),
        turns_per_session=histogram(per_session),
        turn_gap_s=cdf(turn_gaps),
        prefix_tree=prefix_tree(trace, pair_blocks, pair_reqs, num_tree_nodes),
    )


def request_of_access(trace: Trace) -> np.ndarray:
    """The request index of every block access."""
    return np.repeat(np.arange(trace.num_requests, dtype=np.int64), np.diff(trace.offsets))


def distinct_pairs(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (block, request) pairs sorted by block, then request."""
    n = max(trace.num_requests, 1)
    keys = np.sort(trace.block_ids.astype(np.int64) * n + request_of_access(trace))
    # NOTE: not np.unique: on numpy 2.4 it is ~15x slower than sort + mask for int64 keys.
    keys = keys[np.r_[True, keys[1:] != keys[:-1]]] if keys.size else keys
    return keys // n, keys % n


def reuse_gaps(trace: Trace, pair_blocks: np.ndarray, pair_reqs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per reuse: requests and seconds since the latest earlier request holding the block."""
    same = pair_blocks[1:] == pair_blocks[:-1]
    later, earlier = pair_reqs[1:][same], pair_reqs[:-1][same]
    return later - earlier, trace.arrival_s[later] - trace.arrival_s[earlier]


def unlimited_ceiling(trace: Trace, pair_blocks: np.ndarray, pair_reqs: np.ndarray) -> tuple[float, float]:
    """Block and token hit ratios of a cache that never evicts."""
    if trace.num_block_accesses == 0:
        return 0.0, 0.0
    first_req = np.empty(trace.num_blocks, np.int64)
    starts = np.flatnonzero(np.r_[True, pair_blocks[1:] != pair_blocks[:-1]])
    first_req[pair_blocks[starts]] = pair_reqs[starts]
    reqs = request_of_access(trace)
    lengths = np.diff(trace.offsets)
    position = np.arange(trace.num_block_accesses) - trace.offsets[reqs]
    unseen_position = np.where(first_req[trace.block_ids] < reqs, lengths.max(), position)
    hits = np.zeros(trace.num_requests, np.int64)
    nonempty = np.flatnonzero(lengths > 0)
    hits[nonempty] = np.minimum.reduceat(unseen_position, trace.offsets[nonempty])
    hits = np.minimum(hits, lengths)
    token_hits = np.minimum(hits * trace.block_tokens, trace.input_tokens)
    total_tokens = int(trace.input_tokens.sum())
    return float(hits.sum() / lengths.sum()), float(token_hits.sum() / total_tokens) if total_tokens else 0.0


def session_shape(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """Requests per session (sessions with a known id) and seconds between consecutive turns."""
    known = trace.session_ids != UNKNOWN
    ids, arrivals = trace.session_ids[known], trace.arrival_s[known]
    if ids.size == 0:
        return np.zeros(0, np.int64), np.zeros(0)
    _, per_session = np.unique(ids, return_counts=True)
    order = np.lexsort((arrivals, ids))
    ids, arrivals = ids[order], arrivals[order]
    return per_session, np.diff(arrivals)[ids[1:] == ids[:-1]]


def arrival_rate(
    arrival_s: np.ndarray, num_bins: int = NUM_RATE_BINS
) -> tuple[float, np.ndarray, np.ndarray]:
    """(bin width s, bin starts, requests per second per bin), the width a round 1/2/5 × 10^k."""
    if arrival_s.size == 0:
        return 1.0, np.zeros(0), np.zeros(0)
    bin_s = nice_width(float(arrival_s[-1]) / num_bins)
    # NOTE: floor(t / w), not t // w: 2.0 // 0.2 is 9.0 (0.2 is stored a hair above 0.2).
    counts = np.bincount(np.floor(arrival_s / bin_s).astype(np.int64))
    return bin_s, np.arange(counts.size) * bin_s, counts / bin_s


def nice_width(raw: float) -> float:
    """The smallest of 1, 2, 5 × 10^k at least raw (and at least 1 ms)."""
    raw = max(raw, 1e-3)
    exponent = np.floor(np.log10(raw))
    for step in (1.0, 2.0, 5.0, 10.0):
        width = step * 10.0**exponent
        if width >= raw * (1 - 1e-12):
            return float(width)
    raise AssertionError("unreachable")


def histogram(values: np.ndarray, max_bins: int = MAX_BINS) -> Histogram:
    """Counts over at most max_bins equal bins; integer values get whole-number edges."""
    values = np.asarray(values)
    if values.size == 0:
        return Histogram(np.zeros(1), np.zeros(0, np.int64))
    low, high = float(values.min()), float(values.max())
    if np.issubdtype(values.dtype, np.integer):
        width = max(1.0, np.ceil((high - low + 1) / max_bins))
        edges = low - 0.5 + width * np.arange(int(np.ceil((high - low + 1) / width)) + 1)
    else:
        edges = np.linspace(low, high if high > low else low + 1.0, max_bins + 1)
    counts, _ = np.histogram(values, edges)
    return Histogram(edges.astype(np.float64), counts.astype(np.int64))


def cdf(values: np.ndarray) -> Cdf:
    """Quantiles of values at CDF_FRACTIONS."""
    values = np.asarray(values, np.float64)
    if values.size == 0:
        return Cdf(np.zeros(0), np.zeros(0), 0)
    return Cdf(np.quantile(values, CDF_FRACTIONS), CDF_FRACTIONS.copy(), int(values.size))


def prefix_tree(trace: Trace, pair_blocks: np.ndarray, pair_reqs: np.ndarray, num_nodes: int) -> PrefixTree:
    """The num_nodes prefixes held by the most requests (at least two), ancestors before descendants,
    as a radix tree: a prefix all of whose requests go on with the same next block is no node of its
    own, its continuation stands for both (a system prompt of 11 blocks is one node, not 11)."""
    counts = np.bincount(pair_blocks, minlength=trace.num_blocks)
    # NOTE: dense ids 0..num_blocks-1 all occur, so np.unique's first indices are per id.
    first_access = np.unique(trace.block_ids, return_index=True)[1].astype(np.int64)
    depth = first_access - trace.offsets[request_of_access(trace)[first_access]]
    parent = np.where(depth > 0, trace.block_ids[np.maximum(first_access - 1, 0)], ROOT).astype(np.int64)
    shared = np.flatnonzero(counts >= 2)
    below = shared[parent[shared] != ROOT]
    passed = np.zeros(trace.num_blocks, bool)  # every request holding it goes on with one child
    passed[parent[below][counts[below] == counts[parent[below]]]] = True
    kept = shared[~passed[shared]]
    # NOTE: a prefix's ancestors are held by at least as many requests and are shallower, so this
    # order puts them first and any cut keeps the tree connected.
    chosen = kept[np.lexsort((depth[kept], -counts[kept]))][:num_nodes]
    parents = _kept_ancestors(parent, passed, chosen)
    parents = np.where(np.isin(parents, chosen), parents, ROOT)  # NOTE: only for non-chained ids
    return PrefixTree(
        node_ids=chosen.astype(np.int64),
        parent_ids=parents,
        depth_blocks=depth[chosen].astype(np.int64),
        num_requests=counts[chosen].astype(np.int64),
        prefix_tokens=(depth[chosen] + 1) * trace.block_tokens,
        num_requests_total=trace.num_requests,
    )


def _kept_ancestors(parent: np.ndarray, passed: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Each node's nearest ancestor that is not passed through (ROOT if none); each passed-through
    block on the way is resolved once."""
    resolved: dict[int, int] = {}
    out = np.empty(nodes.size, np.int64)
    for i, node in enumerate(nodes.tolist()):
        path, up = [], int(parent[node])
        while up != ROOT and passed[up] and up not in resolved:
            path.append(up)
            up = int(parent[up])
        up = resolved.get(up, up)
        resolved.update(dict.fromkeys(path, up))
        out[i] = up
    return out
