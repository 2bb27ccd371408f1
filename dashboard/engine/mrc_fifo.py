"""Exact FIFO miss-ratio curves: every capacity from passes over the trace, not a replay per capacity.

FIFO never reorders a resident block, and an insertion that puts the cache over capacity evicts the
oldest insertion; a block is inserted only when absent. So a cache of C blocks holds exactly the
blocks of its last C insertions (distinct: a block inserted again was evicted first, C insertions
after it entered). Numbering each cache's insertions, the cache needs one number per block, its stamp
(the number of its latest insertion): the block is resident at C iff the stamp is among the last C.

FIFO has no inclusion property (a larger cache can miss where a smaller one hits: Belady's anomaly,
tests/engine/test_mrc_fifo.py), so each capacity keeps its own stamps: a table of blocks × capacities. But
one pass over the trace updates a whole row of it per access, so the trace is read once per chunk
of capacities (TABLE_BYTES bounds the tables held at once), not once per capacity.

The semantics are DESIGN.md's, as single_cache.py replays them: a request's hit is its longest
resident prefix, then its blocks are visited tail first, an absent one inserted. One pass serves
both: a block was resident before the request iff its stamp was among the last C when the request
began, so the prefix hit is read while the blocks are visited tail first (the head-most block that
was absent ends it).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from dashboard.core.config import usable_cores
from dashboard.core.types import Trace

# NOTE: the stamps tables held at once, all threads together: 1 GiB holds 26 capacities of a trace
# with 10M distinct blocks (the 100M-access scale trace), whose 55-point curve then takes 6 passes on
# 2 threads, 3.5 s; 2 GiB took 2.9 s, 512 MiB 5.3 s (docs/whatif.md)
TABLE_BYTES = 1 << 30
STAMP_BYTES = 4  # int32
_NEVER = -(1 << 30)  # a stamp below every cache's oldest insertion: never inserted
# NOTE: stamps are int32: insertions (at most the accesses) and capacities must stay below this
MAX_STAMP = (1 << 31) - 1


def fits(trace: Trace) -> bool:
    """Whether int32 stamps can number every insertion of the trace at every capacity."""
    return trace.num_blocks < -_NEVER and trace.num_block_accesses + trace.num_blocks < MAX_STAMP


def fifo_hits(trace: Trace, capacities: np.ndarray, num_threads: int | None = None) -> tuple:
    """(prefix-hit blocks, prefix-hit tokens) summed over the requests, int64 per capacity, exactly as
    a replay of one FIFO cache of each capacity counts them (fits(trace) must hold)."""
    caps = np.minimum(np.asarray(capacities, np.int64), trace.num_blocks).astype(np.int32)
    workers = max(1, min(num_threads or usable_cores(), caps.size))
    per_table = max(1, TABLE_BYTES // (workers * STAMP_BYTES * max(trace.num_blocks, 1)))
    # NOTE: as many chunks as the tables need, rounded up to keep every thread busy to the end
    num_chunks = workers * math.ceil(max(math.ceil(caps.size / per_table), workers) / workers)
    chunks = [c for c in np.array_split(caps, min(num_chunks, max(caps.size, 1))) if c.size]

    def one(chunk: np.ndarray) -> tuple:
        return _fifo_pass(
            trace.offsets, trace.block_ids, trace.input_tokens, trace.block_tokens, trace.num_blocks, chunk
        )

    if workers == 1:
        parts = [one(c) for c in chunks]
    else:
        with ThreadPoolExecutor(workers, thread_name_prefix="kvscope-fifo") as pool:
            parts = list(pool.map(one, chunks))
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


@njit(cache=True, nogil=True, error_model="numpy")  # NOTE: nogil: chunks of capacities run on threads
def _fifo_pass(
    offsets: np.ndarray,
    block_ids: np.ndarray,
    input_tokens: np.ndarray,
    block_tokens: int,
    num_blocks: int,
    caps: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Prefix-hit blocks and tokens of one FIFO cache per capacity in caps (int32, each ≤ num_blocks).

    floor[c] = insertions so far − caps[c]: a block is resident iff its stamp is above it."""
    k = caps.shape[0]
    stamps = np.full((num_blocks, k), _NEVER, np.int32)
    floor = -caps.copy()
    floor_before = np.empty(k, np.int32)  # floor when the request began
    hit = np.empty(k, np.int32)
    block_hits = np.zeros(k, np.int64)
    token_hits = np.zeros(k, np.int64)
    for r in range(offsets.shape[0] - 1):
        lo = offsets[r]
        n = np.int32(offsets[r + 1] - lo)
        floor_before[:] = floor
        hit[:] = n
        for j in range(n - 1, -1, -1):
            row = stamps[block_ids[lo + j]]
            # NOTE: branch-free over the capacities, so the loop runs in vector registers
            for c in range(k):
                stamp = row[c]
                # NOTE: resident before the request: inserted, but not by this request (a block may repeat)
                before = (stamp > floor_before[c]) & (stamp <= floor_before[c] + caps[c])
                hit[c] = hit[c] if before else j
                absent = np.int32(stamp <= floor[c])
                floor[c] += absent
                row[c] = floor[c] + caps[c] if absent else stamp
        prompt = input_tokens[r]
        for c in range(k):
            block_hits[c] += hit[c]
            token_hits[c] += min(np.int64(hit[c]) * block_tokens, prompt)
    return block_hits, token_hits
