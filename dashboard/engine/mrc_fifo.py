"""Exact FIFO miss-ratio curves: every capacity from passes over the trace, not a replay per capacity.

FIFO never reorders a resident block, and an insertion that puts the cache over capacity evicts the
oldest insertion; a block is inserted only when absent. So a cache of C blocks holds exactly the
blocks of its last C insertions (distinct: a block inserted again was evicted first, C insertions
after it entered). Numbering each cache's insertions, the cache needs one number per block, its stamp
(the number of its latest insertion): the block is resident at C iff the stamp is among the last C.

FIFO has no inclusion property (a larger cache can miss where a smaller one hits: Belady's anomaly,
tests/engine/test_mrc_fifo.py), so each capacity keeps its own stamps, LANES capacities side by side
in a row of int32 that one access updates at once. A block's stamps matter only from its first read
to its last (before, it is absent everywhere; after, nobody asks), so a row is lent to a block for
that span and then reused: the table holds the blocks *held* at once, not every block (41,582 rows
for the 100M-access scale trace's 10M blocks). Each pass serves LANES capacities; passes run on a
thread per core.

The semantics are DESIGN.md's, as single_cache.py replays them: a request's hit is its longest
resident prefix, then its blocks are visited tail first, an absent one inserted. One pass serves
both: a block was resident before the request iff its stamp was among the last C when the request
began, so the prefix hit is read while the blocks are visited tail first (the head-most block that
was absent ends it).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
from numba import njit

from dashboard.core.config import usable_cores
from dashboard.core.types import Trace
from dashboard.engine.fifo_lanes import LANES, NEVER, lanes_begin, lanes_end, lanes_new, lanes_visit

# NOTE: LANES is 32 capacities to a row (two cache lines): a default 55-point curve is two passes, one
# per core. With their state in registers (fifo_lanes.py) a pass at 100M accesses took 0.71 s at 16
# capacities, 0.87 s at 32, 1.08 s at 48 and 1.27 s at 64; the 55 capacities 1.28, 0.86, 1.09 and 1.31 s
# NOTE: the rows held at once, all threads together; past it (a trace holding millions of blocks
# between their first and last reads) the curve falls back to a replay per capacity
TABLE_BYTES = 1 << 30
STAMP_BYTES = 4  # int32
# NOTE: accesses whose rows are assigned in one go before they are visited: the lookups of the rows
# lent to blocks miss the caches, and a loop of lookups alone overlaps them (a pass at 100M accesses
# took 3.2 s looking each up as it was visited, 1.6 s in chunks)
CHUNK_ACCESSES = 1 << 15
# NOTE: stamps and access numbers are int32: insertions (at most the accesses) and capacities must stay below this
MAX_STAMP = (1 << 31) - 1
_SCRATCH = 0  # the row of blocks read once: written, never read


class FifoHits(NamedTuple):
    """Prefix-hit blocks and tokens summed over the requests, int64 per capacity; the most blocks
    held (between their first and last reads) at once, the rows each pass's table needed."""

    block_hits: np.ndarray
    token_hits: np.ndarray
    held_blocks: int


def fits(trace: Trace) -> bool:
    """Whether int32 stamps can number every insertion of the trace at every capacity."""
    return trace.num_blocks < -NEVER and trace.num_block_accesses + trace.num_blocks < MAX_STAMP


def fifo_hits(
    trace: Trace, capacities: np.ndarray, num_threads: int | None = None, table_bytes: int | None = None
) -> FifoHits | None:
    """What a replay of one FIFO cache of each capacity counts, exactly (fits(trace) must hold); None
    when the blocks held at once need more than table_bytes (default TABLE_BYTES) of rows over all
    threads (then replay per capacity)."""
    caps = np.minimum(np.asarray(capacities, np.int64), trace.num_blocks).astype(np.int32)
    groups = [caps[i : i + LANES] for i in range(0, caps.size, LANES)]
    if not groups:
        return FifoHits(np.zeros(0, np.int64), np.zeros(0, np.int64), 0)
    workers = max(1, min(num_threads or usable_cores(), len(groups)))
    max_rows = (TABLE_BYTES if table_bytes is None else table_bytes) // (workers * LANES * STAMP_BYTES)
    last = _last_reads(trace.block_ids, trace.num_blocks)

    # NOTE: every pass lends the same rows itself (0.32 s of a 1.23 s pass at 100M accesses): one pass
    # lending for the others would still lend and visit, so the slowest pass would be no faster
    def one(group: np.ndarray) -> tuple:
        # NOTE: a short group is padded with repeats of its capacities, whose hits are dropped
        return _fifo_pass(
            trace.offsets,
            trace.block_ids,
            trace.input_tokens,
            trace.block_tokens,
            last,
            np.resize(group, LANES),
            max_rows,
        )

    if workers == 1:
        parts = [one(g) for g in groups]
    else:
        with ThreadPoolExecutor(workers, thread_name_prefix="kvscope-fifo") as pool:
            parts = list(pool.map(one, groups))
    if any(rows < 0 for _, _, rows in parts):
        return None
    return FifoHits(
        np.concatenate([p[0][: g.size] for p, g in zip(parts, groups, strict=True)]),
        np.concatenate([p[1][: g.size] for p, g in zip(parts, groups, strict=True)]),
        max(rows for _, _, rows in parts) - 1,  # the scratch row is no block's
    )


@njit(cache=True, nogil=True)
def _last_reads(block_ids: np.ndarray, num_blocks: int) -> np.ndarray:
    """The number of each block's last access (int32: fits() bounds the accesses)."""
    last = np.empty(num_blocks, np.int32)
    for a in range(block_ids.shape[0]):
        last[block_ids[a]] = a
    return last


@njit(cache=True, nogil=True, error_model="numpy")  # NOTE: nogil: groups of capacities run on threads
def _fifo_pass(
    offsets: np.ndarray,
    block_ids: np.ndarray,
    input_tokens: np.ndarray,
    block_tokens: int,
    last: np.ndarray,
    caps: np.ndarray,
    max_rows: int,
) -> tuple[np.ndarray, np.ndarray, int]:
    """(prefix-hit blocks, tokens, rows used) of one FIFO cache per capacity in caps (LANES of them,
    int32, each ≤ the blocks), requests in chunks of about CHUNK_ACCESSES: their rows assigned, then
    visited. Rows used -1: the blocks held at once needed over max_rows (the scratch row counts)."""
    if caps.shape[0] != LANES:
        raise ValueError("a FIFO pass takes LANES capacities")  # NOTE: lanes_new reads that many
    row_of = np.full(last.shape[0], -1, np.int32)
    free = np.empty(CHUNK_ACCESSES, np.int32)
    counts = np.array([0, _SCRATCH + 1])  # rows free, rows used
    stamps = np.empty((CHUNK_ACCESSES, LANES), np.int32)
    codes = np.empty(CHUNK_ACCESSES, np.int32)
    block_hits = np.zeros(LANES, np.int64)
    token_hits = np.zeros(LANES, np.int64)
    lanes = lanes_new(caps)
    num_requests = offsets.shape[0] - 1
    first = 0
    while first < num_requests:
        stop = first + 1
        while stop < num_requests and offsets[stop + 1] - offsets[first] <= CHUNK_ACCESSES:
            stop += 1
        size = offsets[stop] - offsets[first]
        if size > codes.shape[0]:
            codes = np.empty(size, np.int32)
        # NOTE: a chunk can lend a row per access: the table and the free list grow first
        need = counts[1] + size
        if need > stamps.shape[0]:
            grown = np.empty((max(need, min(2 * stamps.shape[0], max_rows)), LANES), np.int32)
            grown[: stamps.shape[0]] = stamps
            stamps = grown
            grown_free = np.empty(grown.shape[0], np.int32)
            grown_free[: counts[0]] = free[: counts[0]]
            free = grown_free
        _lend_rows(offsets, block_ids, last, first, stop, row_of, free, counts, codes)
        if counts[1] > max_rows:
            return block_hits, token_hits, -1
        _visit(offsets, input_tokens, block_tokens, first, stop, codes, stamps, lanes, block_hits, token_hits)
        first = stop
    return block_hits, token_hits, counts[1]


# NOTE: inlined into _fifo_pass, as is _visit: called as functions, the pass took 6.7 s at 100M accesses, not 1.3 s
@njit(cache=True, nogil=True, inline="always")
def _lend_rows(offsets, block_ids, last, first, stop, row_of, free, counts, codes) -> None:
    """Each access of requests first..stop-1 as its block's row into codes (−row − 1 at the block's
    first read, when the row holds another block's stamps), in the order _visit meets them: a row
    lent at a block's first read returns to free after its last."""
    base = offsets[first]
    num_free, num_rows = counts[0], counts[1]
    for r in range(first, stop):
        for a in range(offsets[r + 1] - 1, offsets[r] - 1, -1):
            b = block_ids[a]
            row = row_of[b]
            is_last = last[b] == a
            if row >= 0:
                codes[a - base] = row
            elif is_last:
                codes[a - base] = -_SCRATCH - 1  # read once: absent everywhere, its stamps never read
                continue
            else:
                if num_free:
                    num_free -= 1
                    row = free[num_free]
                else:
                    row = num_rows
                    num_rows += 1
                row_of[b] = row
                codes[a - base] = -row - 1
            if is_last:
                free[num_free] = row
                num_free += 1
    counts[0], counts[1] = num_free, num_rows


@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _visit(
    offsets, input_tokens, block_tokens, first, stop, codes, stamps, lanes, block_hits, token_hits
) -> None:
    """Requests first..stop-1 through every capacity's stamps (lanes: fifo_lanes' state), adding their prefix hits."""
    base = offsets[first]
    for r in range(first, stop):
        lo = offsets[r]
        n = offsets[r + 1] - lo
        lanes_begin(lanes, n)
        for j in range(n - 1, -1, -1):
            code = codes[lo + j - base]
            is_new = code < 0
            lanes_visit(lanes, stamps, -code - 1 if is_new else code, is_new, j)
        lanes_end(lanes, block_hits, token_hits, block_tokens, input_tokens[r])
