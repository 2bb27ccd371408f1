"""The interchange requests.parquet (DESIGN.md): what `kvscope sample` and the simulator write."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq

from dashboard.core.types import UNKNOWN, Trace
from dashboard.engine.readers.canonical import build_trace

REQUIRED = ("ts", "input_tokens", "output_tokens", "block_tokens", "block_ids")


def read_requests_parquet(path: str | Path, block_tokens: int | None = None) -> Trace:
    """Read requests.parquet; sessions and tenants (strings) become integer codes."""
    path = Path(path)
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for a bad file
        raise ValueError(f"{path}: not a readable Parquet file ({exc})") from None
    missing = [c for c in REQUIRED if c not in table.column_names]
    if missing:
        raise ValueError(f"{path}: missing column {missing[0]!r}")
    for column in ("input_tokens", "block_ids", "ts"):
        if table[column].null_count:
            row = pc.index(pc.is_null(table[column]), True).as_py()
            raise ValueError(f"{path}: row {row}: column {column!r} is null")
    sizes = set(pc.unique(table["block_tokens"]).to_pylist())
    if block_tokens is None and len(sizes) != 1:
        raise ValueError(f"{path}: column 'block_tokens' holds several sizes {sorted(sizes)}; pass one")
    ts = table["ts"].to_numpy().astype("datetime64[us]").astype(np.int64) / 1e6
    blocks = table["block_ids"].combine_chunks()
    return build_trace(
        arrival_s=ts - (ts.min() if ts.size else 0.0),
        block_counts=pc.list_value_length(blocks).to_numpy(zero_copy_only=False).astype(np.int64),
        raw_block_ids=blocks.flatten().to_numpy(zero_copy_only=False).astype(np.int64),
        input_tokens=table["input_tokens"].to_numpy(),
        output_tokens=table["output_tokens"].fill_null(0).to_numpy(),
        block_tokens=block_tokens or sizes.pop(),
        source=str(path),
        session_ids=_codes(table, "session_id"),
        turns=table["turn"].fill_null(UNKNOWN).to_numpy() if "turn" in table.column_names else None,
        tenant_ids=_codes(table, "tenant"),
    )


def _codes(table, column: str) -> np.ndarray | None:
    """Integer codes of a string column in order of first appearance; nulls → UNKNOWN."""
    if column not in table.column_names:
        return None
    # NOTE: dictionary_encode numbers values by first appearance, like pandas.factorize, without
    # importing pandas (it costs a third of a second on every CLI start).
    encoded = table[column].combine_chunks().dictionary_encode()
    codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
    return np.where(codes < 0, UNKNOWN, codes).astype(np.int64)
