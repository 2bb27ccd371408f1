"""Assemble a canonical Trace from per-request columns; every reader ends here."""

from __future__ import annotations

import numpy as np

from dashboard.core.types import UNKNOWN, Trace
from dashboard.engine.readers.intern import dense_ids


def dense_block_ids(raw_ids: np.ndarray) -> tuple[np.ndarray, int]:
    """Map arbitrary int64 block ids to dense int32 ids 0..k-1 in order of first appearance."""
    # NOTE: numbering by first appearance keeps ids stable under appending requests.
    return dense_ids(raw_ids)


def build_trace(
    *,
    arrival_s: np.ndarray,
    block_counts: np.ndarray,
    raw_block_ids: np.ndarray,
    input_tokens: np.ndarray,
    output_tokens: np.ndarray,
    block_tokens: int,
    source: str,
    session_ids: np.ndarray | None = None,
    turns: np.ndarray | None = None,
    type_codes: np.ndarray | None = None,
    type_names: tuple[str, ...] = (),
    tenant_ids: np.ndarray | None = None,
    num_blocks: int | None = None,
) -> Trace:
    """A validated Trace; requests are stably sorted by arrival, ids made dense.

    num_blocks, when given, says raw_block_ids are already dense (0..num_blocks-1, numbered by first
    appearance in the given order), as the compiled JSONL scan makes them.
    """
    n = int(arrival_s.shape[0])
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(block_counts, out=offsets[1:])
    order = np.argsort(arrival_s, kind="stable")
    order_changed = not np.array_equal(order, np.arange(n))
    if order_changed:
        starts, counts = offsets[:-1][order], np.asarray(block_counts)[order]
        raw_block_ids = np.concatenate(
            [raw_block_ids[s : s + c] for s, c in zip(starts, counts, strict=True)] or [raw_block_ids[:0]]
        )
        np.cumsum(counts, out=offsets[1:])
    if num_blocks is None or order_changed:
        dense, num_blocks = dense_block_ids(np.asarray(raw_block_ids, np.int64))
    else:
        dense = np.asarray(raw_block_ids, np.int32)

    def column(values: np.ndarray | None, dtype: type) -> np.ndarray:
        if values is None:
            return np.full(n, UNKNOWN, dtype)
        return np.asarray(values, dtype)[order]

    trace = Trace(
        arrival_s=np.asarray(arrival_s, np.float64)[order],
        offsets=offsets,
        block_ids=dense,
        input_tokens=np.asarray(input_tokens, np.int64)[order],
        output_tokens=np.asarray(output_tokens, np.int64)[order],
        block_tokens=int(block_tokens),
        num_blocks=num_blocks,
        session_ids=column(session_ids, np.int64),
        turns=column(turns, np.int32),
        type_codes=column(type_codes, np.int16),
        type_names=type_names,
        tenant_ids=None if tenant_ids is None else np.asarray(tenant_ids, np.int32)[order],
        source=source,
    )
    trace.validate()
    return trace
