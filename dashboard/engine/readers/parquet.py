"""The interchange requests.parquet (DESIGN.md): what `kvscope sample` and the simulator write.

Every value is checked before it becomes an array: a bad one is a ValueError naming the file,
the row (counted from 0, as pyarrow and pandas count) and the column.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from dashboard.core.types import UNKNOWN, Trace
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.readers.jsonl import INT32_MAX, INT64_MAX

REQUIRED = ("ts", "input_tokens", "output_tokens", "block_tokens", "block_ids")


def read_requests_parquet(path: str | Path, block_tokens: int | None = None) -> Trace:
    """Read requests.parquet; sessions and tenants (strings) become integer codes."""
    path = Path(path)
    table = _read_table(path)
    sizes = np.unique(_whole_numbers(path, table, "block_tokens", minimum=1, maximum=INT32_MAX))
    if block_tokens is None and len(sizes) != 1:
        raise ValueError(
            f"{path}: column 'block_tokens' holds several sizes {sizes.tolist()}; pass --block-tokens"
        )
    ts = _seconds(path, table)
    counts, raw_ids = _block_ids(path, table)
    return build_trace(
        arrival_s=ts - ts.min(),
        block_counts=counts,
        raw_block_ids=raw_ids,
        input_tokens=_whole_numbers(path, table, "input_tokens"),
        output_tokens=_whole_numbers(path, table, "output_tokens", nullable=True),
        block_tokens=block_tokens or int(sizes[0]),
        source=str(path),
        session_ids=_codes(table, "session_id"),
        turns=_turns(path, table),
        tenant_ids=_codes(table, "tenant"),
    )


def unreadable(path: Path, exc: Exception) -> ValueError:
    """The one-line error for a file pyarrow could not read: the path and the first line of why."""
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return ValueError(f"{path}: not a readable Parquet file ({reason})")


def _read_table(path: Path) -> pa.Table:
    """The whole file, with the required columns present and at least one row."""
    if path.is_dir():
        raise ValueError(f"{path}: is a directory, not a trace file")
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several types for a bad file
        raise unreadable(path, exc) from None
    missing = [c for c in REQUIRED if c not in table.column_names]
    if missing:
        raise ValueError(f"{path}: missing column {missing[0]!r}")
    if table.num_rows == 0:
        raise ValueError(f"{path}: no requests (0 rows)")
    return table


def _fail(path: Path, column: str, bad: np.ndarray, values: pa.Array, what: str) -> None:
    """Raise naming the first row where bad is True, if any."""
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(f"{path}: row {row}: column {column!r} {what}, got {values[row].as_py()!r}")


def _whole_numbers(
    path: Path,
    table: pa.Table,
    column: str,
    *,
    nullable: bool = False,
    minimum: int = 0,
    maximum: int = INT64_MAX,
) -> np.ndarray:
    """An integer or float column as int64 whole numbers in [minimum, maximum]; nulls → 0 if nullable."""
    values = table[column].combine_chunks()
    kind = values.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        raise ValueError(f"{path}: column {column!r} must hold whole numbers, got type {kind}")
    is_null = values.is_null().to_numpy(zero_copy_only=False)
    if not nullable:
        _fail(path, column, is_null, values, "is null")
    numbers = values.fill_null(0).to_numpy(zero_copy_only=False)
    if pa.types.is_floating(kind):
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(numbers) | (numbers != np.floor(numbers))
        _fail(path, column, bad, values, "must be a whole number")
        bad = (numbers < minimum) | (numbers >= 2.0**63) | (numbers > maximum)
    else:
        # NOTE: compare in the column's own type: a uint64 above 2**63 must not wrap negative.
        bad = (numbers < minimum) | (numbers > maximum) if numbers.size else np.zeros(0, bool)
    _fail(path, column, bad, values, f"must be from {minimum} to {maximum:,}")
    return numbers.astype(np.int64)


def _seconds(path: Path, table: pa.Table) -> np.ndarray:
    """Column ts as epoch seconds: a timestamp or date column, or ISO-8601 text (no zone = UTC)."""
    values = table["ts"].combine_chunks()
    _fail(path, "ts", values.is_null().to_numpy(zero_copy_only=False), values, "is null")
    kind = values.type
    if pa.types.is_timestamp(kind) or pa.types.is_date(kind):
        micros = values.cast(pa.timestamp("us", tz=getattr(kind, "tz", None)), safe=False).cast(pa.int64())
        return micros.to_numpy(zero_copy_only=False) / 1e6
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return np.array([_parse_time(path, row, text) for row, text in enumerate(values.to_pylist())])
    raise ValueError(f"{path}: column 'ts' must be a timestamp (or ISO-8601 text), got type {kind}")


def _parse_time(path: Path, row: int, text: str) -> float:
    try:
        dt = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{path}: row {row}: column 'ts' is not an ISO-8601 time, got {text[:40]!r}"
        ) from None
    return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp()


def _block_ids(path: Path, table: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """Per-row block counts and the flat int64 ids of column block_ids (a list of integers)."""
    lists = table["block_ids"].combine_chunks()
    kind = lists.type
    if not (
        (pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind))
        and pa.types.is_integer(kind.value_type)
    ):
        raise ValueError(f"{path}: column 'block_ids' must be a list of integers, got type {kind}")
    _fail(path, "block_ids", lists.is_null().to_numpy(zero_copy_only=False), lists, "is null")
    flat = lists.flatten()
    parents = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False)
    ids = flat.fill_null(0).to_numpy(zero_copy_only=False)
    bad = flat.is_null().to_numpy(zero_copy_only=False)
    if ids.dtype == np.uint64:
        bad |= ids > np.uint64(INT64_MAX)
    if bad.any():
        row = int(parents[np.argmax(bad)])
        raise ValueError(
            f"{path}: row {row}: column 'block_ids' holds a null or an id outside the 64-bit integer "
            f"range, got {str(lists[row].as_py())[:60]}"
        )
    counts = pc.list_value_length(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    return counts, ids.astype(np.int64)


def _turns(path: Path, table: pa.Table) -> np.ndarray | None:
    """Optional column turn (0-based); nulls → UNKNOWN."""
    if "turn" not in table.column_names:
        return None
    known = _whole_numbers(path, table, "turn", nullable=True, maximum=INT32_MAX)
    is_null = table["turn"].combine_chunks().is_null().to_numpy(zero_copy_only=False)
    return np.where(is_null, UNKNOWN, known)


def _codes(table: pa.Table, column: str) -> np.ndarray | None:
    """Integer codes of a string column in order of first appearance; nulls → UNKNOWN."""
    if column not in table.column_names:
        return None
    # NOTE: dictionary_encode numbers values by first appearance, like pandas.factorize, without
    # importing pandas (it costs a third of a second on every CLI start).
    encoded = table[column].combine_chunks().dictionary_encode()
    codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
    return np.where(codes < 0, UNKNOWN, codes).astype(np.int64)
