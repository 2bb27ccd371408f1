"""Imported traces: read a file once, store it in DuckDB, replay and query it by name."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa

from dashboard.core.types import UNKNOWN, Trace
from dashboard.engine.readers import read_trace, sniff_format
from dashboard.engine.readers.canonical import build_trace
from dashboard.store.db import Store
from dashboard.store.queries import execute_write, run_query

MAX_REQUESTS = 100_000_000  # row cap for loading one stored trace


@dataclass(frozen=True)
class TraceInfo:
    """One imported trace as the traces table records it."""

    trace_id: int
    name: str
    format: str
    source_path: str
    block_tokens: int
    num_requests: int
    num_block_accesses: int
    num_blocks: int
    imported_at: datetime

    def to_dict(self) -> dict[str, object]:
        """JSON-ready fields (imported_at as ISO-8601 UTC)."""
        return {**self.__dict__, "imported_at": self.imported_at.isoformat()}


def import_trace(
    store: Store, path: str | Path, fmt: str | None, name: str, block_tokens: int | None = None
) -> TraceInfo:
    """Read path (format fmt, or sniffed) and store it as name in one transaction."""
    if not name or not name.strip():
        raise ValueError("trace name must not be empty")
    path = Path(path)
    fmt = fmt or sniff_format(path)
    trace = read_trace(path, fmt, block_tokens)
    if not run_query(store, "trace_list", trace_name=name).empty:
        raise ValueError(f"a trace named {name!r} is already imported; pick another --name")
    imported_at = datetime.now(UTC).replace(tzinfo=None)
    with store.transaction() as cur:
        execute_write(
            cur,
            "trace_insert",
            trace_name=name,
            format=fmt,
            source_path=str(path.resolve()),
            block_tokens=trace.block_tokens,
            num_requests=trace.num_requests,
            num_block_accesses=trace.num_block_accesses,
            num_blocks=trace.num_blocks,
            type_names=list(trace.type_names),
            has_tenants=str(trace.tenant_ids is not None).lower(),
            imported_at=imported_at,
        )
        trace_id = int(cur.fetchall()[0][0])
        # NOTE: the registration lives on this transaction's cursor and ends with it.
        cur.register("incoming_trace", _requests_table(trace))
        execute_write(cur, "trace_requests_insert", trace_id=trace_id)
    return TraceInfo(
        trace_id,
        name,
        fmt,
        str(path.resolve()),
        trace.block_tokens,
        trace.num_requests,
        trace.num_block_accesses,
        trace.num_blocks,
        imported_at,
    )


def list_traces(store: Store) -> list[TraceInfo]:
    """Every imported trace, newest first."""
    if not bool(run_query(store, "trace_tables").iloc[0]["has_traces"]):
        return []  # NOTE: a store made before migration 002 and opened read-only
    frame = run_query(store, "trace_list")
    return [_info(row) for row in frame.itertuples(index=False)]


def load_stored_trace(store: Store, name: str) -> Trace:
    """The canonical Trace imported as name, identical to the one read from its file."""
    known = [t.name for t in list_traces(store)]
    if name not in known:
        raise ValueError(
            f"{name!r} is neither a trace file nor a trace imported into {store.path} "
            f"(imported: {', '.join(known) or 'none'})"
        )
    meta = run_query(store, "trace_list", trace_name=name)
    row = meta.iloc[0]
    frame = run_query(store, "trace_requests", max_rows=MAX_REQUESTS, trace_name=name)
    type_names = tuple(row["type_names"])
    codes = {t: k for k, t in enumerate(type_names)}
    blocks = frame["block_ids"].to_list()
    return build_trace(
        arrival_s=frame["arrival_s"].to_numpy(np.float64),
        block_counts=np.fromiter((len(b) for b in blocks), np.int64, len(blocks)),
        raw_block_ids=np.concatenate(blocks).astype(np.int64) if blocks else np.zeros(0, np.int64),
        input_tokens=frame["input_tokens"].to_numpy(np.int64),
        output_tokens=frame["output_tokens"].to_numpy(np.int64),
        block_tokens=int(row["block_tokens"]),
        source=f"{name} (imported from {row['source_path']})",
        session_ids=frame["session_id"].fillna(UNKNOWN).to_numpy(np.int64),
        turns=frame["turn"].fillna(UNKNOWN).to_numpy(np.int32),
        type_codes=frame["type"].map(codes).fillna(UNKNOWN).to_numpy(np.int16),
        type_names=type_names,
        tenant_ids=frame["tenant_id"].fillna(UNKNOWN).to_numpy(np.int32) if row["has_tenants"] else None,
    )


def _requests_table(trace: Trace) -> pa.Table:
    """One Arrow row per request; UNKNOWN integers become NULL."""
    n = trace.num_requests
    names = np.array(list(trace.type_names) + [None], dtype=object)

    def nullable(values: np.ndarray, kind: pa.DataType) -> pa.Array:
        return pa.array(values, kind, mask=values == UNKNOWN)

    return pa.table(
        {
            "idx": pa.array(np.arange(n), pa.int64()),
            "arrival_s": pa.array(trace.arrival_s, pa.float64()),
            "session_id": nullable(trace.session_ids, pa.int64()),
            "turn": nullable(trace.turns, pa.int32()),
            "type": pa.array(
                names[np.where(trace.type_codes == UNKNOWN, len(names) - 1, trace.type_codes)], pa.string()
            ),
            "tenant_id": nullable(
                trace.tenant_ids if trace.tenant_ids is not None else np.full(n, UNKNOWN, np.int32),
                pa.int32(),
            ),
            "input_tokens": pa.array(trace.input_tokens, pa.int64()),
            "output_tokens": pa.array(trace.output_tokens, pa.int64()),
            "block_ids": pa.ListArray.from_arrays(
                pa.array(trace.offsets.astype(np.int32)), pa.array(trace.block_ids)
            ),
        }
    )


def _info(row: object) -> TraceInfo:
    return TraceInfo(
        int(row.trace_id),
        row.name,
        row.format,
        row.source_path,
        int(row.block_tokens),
        int(row.num_requests),
        int(row.num_block_accesses),
        int(row.num_blocks),
        row.imported_at.to_pydatetime(),
    )
