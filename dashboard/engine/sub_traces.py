"""A trace of some of a trace's requests: what sampled and windowed curves replay (mrc_sampled.py, mrc_windows.py)."""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.core.types import Trace


def sub_trace(trace: Trace, requests: np.ndarray) -> Trace:
    """The trace of the given requests (ascending indices), block ids renumbered 0..k-1 in the same order."""
    return sub_trace_and_blocks(trace, requests)[0]


def sub_trace_and_blocks(trace: Trace, requests: np.ndarray) -> tuple[Trace, np.ndarray]:
    """sub_trace, and the original ids of its blocks (sorted: sub-trace id k is the k-th of them)."""
    offsets, dense, kept = _gather(
        trace.offsets, trace.block_ids, np.asarray(requests, np.int64), trace.num_blocks
    )
    tenants = None if trace.tenant_ids is None else trace.tenant_ids[requests]
    sub = Trace(
        arrival_s=trace.arrival_s[requests],
        offsets=offsets,
        block_ids=dense,
        input_tokens=trace.input_tokens[requests],
        output_tokens=trace.output_tokens[requests],
        block_tokens=trace.block_tokens,
        num_blocks=int(kept.size),
        session_ids=trace.session_ids[requests],
        turns=trace.turns[requests],
        type_codes=trace.type_codes[requests],
        type_names=trace.type_names,
        tenant_ids=tenants,
        source=f"{trace.source} (sampled)",
    )
    return sub, kept


@njit(cache=True, nogil=True)
def _gather(offsets: np.ndarray, block_ids: np.ndarray, requests: np.ndarray, num_blocks: int) -> tuple:
    """(offsets, block ids renumbered 0..k-1 in the order of their ids, the k ids kept) of requests.

    NOTE: ids are numbered by first appearance, so their order is first-appearance order here too.
    One pass marks the kept ids and ranks them in place (numpy's gathers and running count took
    0.16 s for 11.5M of a 100M-access trace's accesses; np.unique sorts)."""
    sub_offsets = np.zeros(requests.shape[0] + 1, np.int64)
    for j in range(requests.shape[0]):
        r = requests[j]
        sub_offsets[j + 1] = sub_offsets[j] + offsets[r + 1] - offsets[r]
    blocks = np.empty(sub_offsets[-1], np.int32)
    rank = np.zeros(num_blocks, np.int32)  # NOTE: 1 marks a kept id, then its rank + 1
    for j in range(requests.shape[0]):
        start = offsets[requests[j]]
        for a in range(sub_offsets[j], sub_offsets[j + 1]):
            b = block_ids[start + a - sub_offsets[j]]
            blocks[a] = b
            rank[b] = 1
    ids = np.empty(min(num_blocks, blocks.shape[0]), np.int64)
    kept = 0
    for b in range(num_blocks):
        if rank[b]:
            ids[kept] = b
            kept += 1
            rank[b] = kept
    for a in range(blocks.shape[0]):
        blocks[a] = rank[blocks[a]] - 1
    return sub_offsets, blocks, ids[:kept].copy()
