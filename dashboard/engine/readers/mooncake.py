"""Mooncake FAST'25 JSONL: timestamp (ms), input_length, output_length, hash_ids (512-token blocks)."""

from __future__ import annotations

from array import array
from pathlib import Path

import numpy as np

from dashboard.core.types import Trace
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.readers.jsonl import count, int_list, number, records, require_requests

BLOCK_TOKENS = 512
FIELDS = ("timestamp", "input_length", "output_length", "hash_ids")


def read_mooncake(path: str | Path, block_tokens: int = BLOCK_TOKENS) -> Trace:
    """Read a Mooncake trace, streaming line by line into compact arrays."""
    path = Path(path)
    ts, inp, out, counts, ids = array("d"), array("q"), array("q"), array("q"), array("q")
    for lineno, rec in records(path, FIELDS):
        hash_ids = int_list(path, lineno, rec, "hash_ids")
        ts.append(number(path, lineno, rec, "timestamp") / 1000.0)
        inp.append(count(path, lineno, rec, "input_length"))
        out.append(count(path, lineno, rec, "output_length"))
        counts.append(len(hash_ids))
        ids.extend(hash_ids)
    require_requests(path, len(ts))
    return build_trace(
        arrival_s=np.frombuffer(ts, np.float64),
        block_counts=np.frombuffer(counts, np.int64),
        raw_block_ids=np.frombuffer(ids, np.int64),
        input_tokens=np.frombuffer(inp, np.int64),
        output_tokens=np.frombuffer(out, np.int64),
        block_tokens=block_tokens,
        source=str(path),
    )
