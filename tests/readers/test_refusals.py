"""Readers refuse what is not a trace: one ValueError naming file, line or row, and field.

Each case is a real file on disk; the CLI cases check the one-line contract (exit 2, no
traceback) and that a refused import leaves the store exactly as it was.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard.cli import main
from dashboard.engine.readers import read_trace
from dashboard.store.db import open_store
from tests.readers.test_hardening import BAILIAN_OK, MOONCAKE_OK

CHAT_OK = {"messages": [{"role": "user", "content": "hi"}], "timestamp": 0}


def jsonl(path: Path, *records: dict | str) -> Path:
    # NOTE: text lines are written as they are, so a test can hold numbers json.dumps cannot make.
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def requests_table(**columns: pa.Array) -> pa.Table:
    base = {
        "ts": pa.array([dt.datetime(2026, 1, 1), dt.datetime(2026, 1, 1, 0, 0, 1)], pa.timestamp("us")),
        "input_tokens": pa.array([10, 20], pa.int64()),
        "output_tokens": pa.array([1, 2], pa.int64()),
        "block_tokens": pa.array([16, 16], pa.int32()),
        "block_ids": pa.array([[1], [1, 2]], pa.list_(pa.int64())),
    }
    return pa.table({**base, **columns})


def parquet(path: Path, table: pa.Table) -> Path:
    pq.write_table(table, path)
    return path


# --- parquet ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns", "where"),
    [
        ({"input_tokens": pa.array([10, -5], pa.int64())}, r"row 1: column 'input_tokens'"),
        ({"input_tokens": pa.array([float("nan"), 20.0])}, r"row 0: column 'input_tokens'"),
        ({"input_tokens": pa.array([10.5, 20.0])}, r"row 0: column 'input_tokens'"),
        ({"input_tokens": pa.array([10, 2**64 - 1], pa.uint64())}, r"row 1: column 'input_tokens'"),
        ({"output_tokens": pa.array([-1, 2], pa.int64())}, r"row 0: column 'output_tokens'"),
        ({"output_tokens": pa.array([1.0, float("inf")])}, r"row 1: column 'output_tokens'"),
        ({"block_tokens": pa.array([0, 0], pa.int32())}, r"row 0: column 'block_tokens'"),
        ({"block_ids": pa.array([[1], [2**64 - 1]], pa.list_(pa.uint64()))}, r"row 1: column 'block_ids'"),
        ({"block_ids": pa.array([[1], [2, None]], pa.list_(pa.int64()))}, r"row 1: column 'block_ids'"),
        ({"block_ids": pa.array([1, 2], pa.int64())}, r"column 'block_ids' must be a list of integers"),
        ({"block_ids": pa.array([[1.0], [2.0]], pa.list_(pa.float64()))}, r"column 'block_ids' must be"),
        ({"ts": pa.array(["2026-01-01T00:00:00", "yesterday"])}, r"row 1: column 'ts'"),
        ({"ts": pa.array([1, 2], pa.int64())}, r"column 'ts' must be a timestamp"),
        ({"turn": pa.array([0, 2**40], pa.int64())}, r"row 1: column 'turn'"),
    ],
)
def test_parquet_reader_refuses_bad_values_by_row_and_column(tmp_path, columns, where):
    path = parquet(tmp_path / "r.parquet", requests_table(**columns))
    with pytest.raises(ValueError, match=rf"r\.parquet: {where}"):
        read_trace(path)


def test_parquet_reader_refuses_a_zero_row_file(tmp_path):
    path = parquet(tmp_path / "r.parquet", requests_table().slice(0, 0))
    with pytest.raises(ValueError, match=r"r\.parquet: no requests \(0 rows\)"):
        read_trace(path)


def test_parquet_reader_still_reads_iso_text_timestamps_and_null_output_tokens(tmp_path):
    table = requests_table(
        ts=pa.array(["2026-01-01T00:00:00Z", "2026-01-01T00:00:02+00:00"]),
        output_tokens=pa.array([None, 3], pa.int64()),
    )
    trace = read_trace(parquet(tmp_path / "r.parquet", table))
    assert trace.arrival_s.tolist() == [0.0, 2.0]
    assert trace.output_tokens.tolist() == [0, 3]


# --- JSONL --------------------------------------------------------------------------------------


HUGE = 10**30  # beyond int64: json.loads gives a Python int the arrays cannot hold


@pytest.mark.parametrize(
    ("fmt", "record", "field"),
    [
        ("mooncake", {**MOONCAKE_OK, "input_length": HUGE}, "input_length"),
        ("mooncake", {**MOONCAKE_OK, "timestamp": 10**400}, "timestamp"),
        ("bailian", {**BAILIAN_OK, "output_length": HUGE}, "output_length"),
        ("bailian", {**BAILIAN_OK, "turn": 2**40}, "turn"),
        ("openai-chat", {**CHAT_OK, "output_tokens": HUGE}, "output_tokens"),
        ("openai-chat", {**CHAT_OK, "timestamp": 10**400}, "timestamp"),
        ("openai-chat", {**CHAT_OK, "timestamp": float("nan")}, "timestamp"),
        ("openai-chat", {**CHAT_OK, "timestamp": "tomorrow-ish"}, "timestamp"),
    ],
)
def test_jsonl_readers_refuse_oversized_or_unparsable_numbers_by_line(tmp_path, fmt, record, field):
    path = jsonl(tmp_path / "t.jsonl", record)
    with pytest.raises(ValueError, match=rf"t\.jsonl:1: field '{field}'"):
        read_trace(path, fmt)


def test_jsonl_reader_refuses_a_non_list_hash_ids(tmp_path):
    path = jsonl(tmp_path / "t.jsonl", MOONCAKE_OK, {**MOONCAKE_OK, "hash_ids": 7})
    with pytest.raises(ValueError, match=r"t\.jsonl:2: field 'hash_ids' must be a list of integers"):
        read_trace(path, "mooncake")


@pytest.mark.parametrize("fmt", [None, "mooncake", "bailian", "openai-chat", "canonical"])
def test_a_directory_is_refused_as_a_directory(tmp_path, fmt):
    (tmp_path / "d.jsonl").mkdir()
    with pytest.raises(ValueError, match=r"d\.jsonl: is a directory, not a trace file"):
        read_trace(tmp_path / "d.jsonl", fmt)


@pytest.mark.parametrize("fmt", [None, "mooncake", "bailian", "openai-chat"])
def test_a_utf16_file_is_named_as_utf16(tmp_path, fmt):
    path = tmp_path / "t.jsonl"
    path.write_bytes(json.dumps(MOONCAKE_OK).encode("utf-16"))
    with pytest.raises(ValueError, match=r"t\.jsonl:1: UTF-16 text; kvscope reads UTF-8"):
        read_trace(path, fmt)


@pytest.mark.parametrize("fmt", [None, "mooncake", "bailian", "openai-chat"])
def test_a_binary_file_is_named_as_binary(tmp_path, fmt):
    path = tmp_path / "t.jsonl"
    path.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(ValueError, match=r"t\.jsonl:1: binary data, not JSON text"):
        read_trace(path, fmt)


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(MOONCAKE_OK).encode() + b"\n")
    assert read_trace(path).num_requests == 1


def test_an_empty_file_is_refused_when_sniffing(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match=r"t\.jsonl: no requests"):
        read_trace(path)


# --- the command line: one line, exit 2, store unchanged ------------------------------------------


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


BAD_FILES = {
    "negative.parquet": lambda p: parquet(p, requests_table(input_tokens=pa.array([-1, 2], pa.int64()))),
    "nan.parquet": lambda p: parquet(p, requests_table(input_tokens=pa.array([float("nan"), 2.0]))),
    "empty.parquet": lambda p: parquet(p, requests_table().slice(0, 0)),
    "huge.jsonl": lambda p: jsonl(p, {**MOONCAKE_OK, "input_length": 10**30}),
    "dir.jsonl": lambda p: p.mkdir(),
    "utf16.jsonl": lambda p: p.write_bytes(json.dumps(MOONCAKE_OK).encode("utf-16")),
    "binary.jsonl": lambda p: p.write_bytes(bytes(range(256)) * 8),
    "nothere.jsonl": lambda p: None,
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
@pytest.mark.parametrize("is_new_store", [True, False])
def test_import_trace_of_a_bad_file_is_one_line_and_leaves_the_store_unchanged(
    tmp_path, capsys, name, is_new_store
):
    path = tmp_path / name
    BAD_FILES[name](path)
    db = tmp_path / "k.duckdb"
    if not is_new_store:
        open_store(db).close()
    before = digest(db)
    code = main(["import-trace", str(path), "--name", "x", "--db", str(db)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and name in err[0] and "Traceback" not in err[0], err
    assert "Errno" not in err[0]
    assert digest(db) == before
    assert not Path(f"{db}.wal").exists()
