"""What a trace offers a prefix cache: arrivals, sizes, reuse gaps, ceiling, sessions, shared prefixes.

Everything per block comes from one compiled pass over the accesses in order (block_pass): sorting
the (block, request) pairs took 37 s and 6.2 GB on a 100M-access trace.

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

from typing import NamedTuple

import numpy as np
from numba import njit

from dashboard.core.trace_stats import ROOT, Cdf, Histogram, PrefixTree, TraceStats
from dashboard.core.types import UNKNOWN, Trace
from dashboard.engine.readers.sessions import infer_sessions

CDF_FRACTIONS = np.linspace(0.0, 1.0, 101)
NUM_RATE_BINS = 60
MAX_BINS = 50


def trace_stats(trace: Trace, num_tree_nodes: int = 60) -> TraceStats:
    """All of the page's statistics of trace (one pass over the accesses shared by three)."""
    blocks = block_pass(trace)
    block_ratio, token_ratio = unlimited_ceiling(trace, blocks)
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
        reuse_gap_s=cdf(blocks.gap_s),
        reuse_gap_requests=cdf(blocks.gap_requests),
        ceiling_block_hit_ratio=block_ratio,
        ceiling_token_hit_ratio=token_ratio,
        is_sessions_inferred=is_inferred,
        num_sessions=int(per_session.size),
        turns_per_session=histogram(per_session),
        turn_gap_s=cdf(turn_gaps),
        prefix_tree=prefix_tree(trace, blocks, num_tree_nodes),
    )


class BlockPass(NamedTuple):
    """What one pass over a trace's accesses knows of its blocks, reuses and requests."""

    num_requests: np.ndarray  # per block: the requests holding it (a block listed twice counts once)
    depth: np.ndarray  # per block: its place in the request that first held it (0 = first block)
    parent: np.ndarray  # per block: the block before it there (ROOT at depth 0)
    gap_requests: np.ndarray  # per reuse: requests since the latest earlier request holding the block
    gap_s: np.ndarray  # per reuse: seconds since then
    hits: np.ndarray  # per request: its leading blocks an earlier request held (the unlimited cache's hit)


def block_pass(trace: Trace) -> BlockPass:
    """The module docstring's per-block definitions, in one pass over the accesses in order."""
    holders, depth, parent, gap_requests, gap_s, reuses, hits = _block_pass(
        trace.offsets, trace.block_ids, trace.arrival_s, trace.num_blocks, ROOT
    )
    # NOTE: views, not copies: the buffers hold one entry per access, and most accesses are reuses
    return BlockPass(holders, depth, parent, gap_requests[:reuses], gap_s[:reuses], hits)


@njit(cache=True)
def _block_pass(offsets, block_ids, arrival_s, num_blocks, root) -> tuple:
    """block_pass's fields in order, the gap buffers filled up to the returned count of reuses."""
    n = offsets.shape[0] - 1
    latest = np.full(num_blocks, -1, np.int64)  # the latest request holding each block
    holders = np.zeros(num_blocks, np.int64)
    depth = np.zeros(num_blocks, np.int64)
    parent = np.full(num_blocks, root, np.int64)
    gap_requests = np.empty(block_ids.shape[0], np.int32)  # NOTE: at most one reuse per access
    gap_s = np.empty(block_ids.shape[0], np.float64)
    hits = np.zeros(n, np.int64)
    reuses = 0
    for r in range(n):
        lo, hi = offsets[r], offsets[r + 1]
        leading = True
        for a in range(lo, hi):
            b = block_ids[a]
            before = latest[b]
            if before < 0:
                depth[b] = a - lo
                if a > lo:
                    parent[b] = block_ids[a - 1]
            # NOTE: a block listed again here was held earlier iff another request held it too
            leading = leading and before >= 0 and (before < r or holders[b] > 1)
            if leading:
                hits[r] += 1
            if before == r:
                continue
            if before >= 0:
                gap_requests[reuses] = r - before
                gap_s[reuses] = arrival_s[r] - arrival_s[before]
                reuses += 1
            holders[b] += 1
            latest[b] = r
    return holders, depth, parent, gap_requests, gap_s, reuses, hits


def unlimited_ceiling(trace: Trace, blocks: BlockPass) -> tuple[float, float]:
    """Block and token hit ratios of a cache that never evicts."""
    if trace.num_block_accesses == 0:
        return 0.0, 0.0
    token_hits = np.minimum(blocks.hits * trace.block_tokens, trace.input_tokens)
    total_tokens = int(trace.input_tokens.sum())
    return (
        float(blocks.hits.sum() / trace.num_block_accesses),
        float(token_hits.sum() / total_tokens) if total_tokens else 0.0,
    )


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
    # NOTE: one copy, partitioned in place (converting, then np.quantile's own copy, made two: 1.6 GB
    # for a 100M-access trace's reuse gaps)
    values = np.array(values, np.float64)
    if values.size == 0:
        return Cdf(np.zeros(0), np.zeros(0), 0)
    return Cdf(
        np.quantile(values, CDF_FRACTIONS, overwrite_input=True), CDF_FRACTIONS.copy(), int(values.size)
    )


def prefix_tree(trace: Trace, blocks: BlockPass, num_nodes: int) -> PrefixTree:
    """The num_nodes prefixes held by the most requests (at least two), ancestors before descendants,
    as a radix tree: a prefix all of whose requests go on with the same next block is no node of its
    own, its continuation stands for both (a system prompt of 11 blocks is one node, not 11)."""
    counts, depth, parent = blocks.num_requests, blocks.depth, blocks.parent
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
