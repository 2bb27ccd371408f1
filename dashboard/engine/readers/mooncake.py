"""Mooncake FAST'25 JSONL: timestamp (ms), input_length, output_length, hash_ids (512-token blocks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dashboard.core.types import Trace
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.readers.jsonl import count, int_list, number, require_requests
from dashboard.engine.readers.scan import scan_jsonl
from dashboard.engine.readers.scan_kernel import LIST, NUMBER

BLOCK_TOKENS = 512
FIELDS = ("timestamp", "input_length", "output_length", "hash_ids")
KINDS = (NUMBER, NUMBER, NUMBER, LIST)


def record_values(path: Path, lineno: int, rec: dict[str, Any]) -> tuple[list[float], list[int]]:
    """One record's checked ([timestamp, input, output, 0], hash_ids), or a ValueError naming the field."""
    hash_ids = int_list(path, lineno, rec, "hash_ids")
    ts = number(path, lineno, rec, "timestamp")
    inp = count(path, lineno, rec, "input_length")
    out = count(path, lineno, rec, "output_length")
    return [ts, float(inp), float(out), 0.0], hash_ids


def read_mooncake(path: str | Path, block_tokens: int = BLOCK_TOKENS) -> Trace:
    """Read a Mooncake trace: a compiled scan, with the Python path for any line it defers."""
    path = Path(path)
    cols = scan_jsonl(path, FIELDS, KINDS, record_values)
    require_requests(path, cols.counts.shape[0])
    # NOTE: count() is int(float(value)), so a count round-trips through float64 on both paths.
    return build_trace(
        arrival_s=cols.values[:, 0] / 1000.0,
        block_counts=cols.counts,
        raw_block_ids=cols.block_ids,
        num_blocks=cols.num_blocks,
        input_tokens=cols.values[:, 1].astype(np.int64),
        output_tokens=cols.values[:, 2].astype(np.int64),
        block_tokens=block_tokens,
        source=str(path),
    )
