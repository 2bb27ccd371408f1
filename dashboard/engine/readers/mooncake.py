"""Mooncake FAST'25 JSONL: timestamp (ms), input_length, output_length, hash_ids (512-token blocks)."""

from __future__ import annotations

import json
from array import array
from pathlib import Path

import numpy as np

from dashboard.core.types import Trace
from dashboard.engine.readers.canonical import build_trace

BLOCK_TOKENS = 512
FIELDS = ("timestamp", "input_length", "output_length", "hash_ids")


def read_mooncake(path: str | Path, block_tokens: int = BLOCK_TOKENS) -> Trace:
    """Read a Mooncake trace, streaming line by line into compact arrays."""
    path = Path(path)
    ts, inp, out, counts, ids = array("d"), array("q"), array("q"), array("q"), array("q")
    with path.open("rb") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
            missing = [f for f in FIELDS if f not in rec]
            if missing:
                raise ValueError(f"{path}:{lineno}: missing field {missing[0]!r}")
            hash_ids = rec["hash_ids"]
            if not isinstance(hash_ids, list) or not all(isinstance(h, int) for h in hash_ids):
                raise ValueError(f"{path}:{lineno}: field 'hash_ids' must be a list of integers")
            ts.append(float(rec["timestamp"]) / 1000.0)
            inp.append(int(rec["input_length"]))
            out.append(int(rec["output_length"]))
            counts.append(len(hash_ids))
            ids.extend(hash_ids)
    return build_trace(
        arrival_s=np.frombuffer(ts, np.float64),
        block_counts=np.frombuffer(counts, np.int64),
        raw_block_ids=np.frombuffer(ids, np.int64),
        input_tokens=np.frombuffer(inp, np.int64),
        output_tokens=np.frombuffer(out, np.int64),
        block_tokens=block_tokens,
        source=str(path),
    )
