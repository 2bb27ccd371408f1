"""The Mooncake reader's pure-Python twin: the line-by-line json path the compiled scan replaced.

Compared with read_mooncake on random files (test_scan.py) and the bench's baseline; and what
the compiled and json paths' answers are compared as (`outcome`).
"""

from __future__ import annotations

from array import array
from pathlib import Path

import numpy as np

from dashboard.core.types import Trace
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.readers.jsonl import records, require_requests
from dashboard.engine.readers.mooncake import BLOCK_TOKENS, FIELDS, record_values


def read_mooncake_twin(path: str | Path, block_tokens: int = BLOCK_TOKENS) -> Trace:
    """Read a Mooncake trace with json.loads, one line at a time."""
    path = Path(path)
    ts, inp, out, counts, ids = array("d"), array("q"), array("q"), array("q"), array("q")
    for lineno, rec in records(path, FIELDS):
        (t, i, o, _), hash_ids = record_values(path, lineno, rec)
        ts.append(t / 1000.0)
        inp.append(int(i))
        out.append(int(o))
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


TRACE_ARRAYS = ("arrival_s", "offsets", "block_ids", "input_tokens", "output_tokens")


def outcome(read, path: Path, fields: tuple[str, ...] = TRACE_ARRAYS) -> tuple | str:
    """A reader's Trace fields (arrays as lists) with its num_blocks and id dtype, or its error message."""
    try:
        t = read(path, block_tokens=16)
    except ValueError as exc:
        return str(exc)
    got = [getattr(t, f) for f in fields]
    return (*(g.tolist() if isinstance(g, np.ndarray) else g for g in got), t.num_blocks, t.block_ids.dtype)
