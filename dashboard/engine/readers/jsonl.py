"""Shared JSON Lines plumbing: parse each line with file:line errors, check required fields."""

from __future__ import annotations

import codecs
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT32_MAX = 2**31 - 1
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def open_trace_file(path: Path) -> BinaryIO:
    """path opened for reading bytes; a directory or unreadable file is a ValueError naming it."""
    if path.is_dir():
        raise ValueError(f"{path}: is a directory, not a trace file")
    try:
        return path.open("rb")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read ({(exc.strerror or str(exc)).lower()})") from None


def decode_line(path: Path, lineno: int, line: bytes) -> str:
    """One line as text; UTF-16 and binary data are named as such (a UTF-8 BOM is dropped)."""
    if lineno == 1 and line.startswith(codecs.BOM_UTF8):
        line = line[len(codecs.BOM_UTF8) :]
    elif lineno == 1 and line.startswith(UTF16_BOMS):
        raise ValueError(f"{path}:1: UTF-16 text; kvscope reads UTF-8 (convert it: iconv -f UTF-16 -t UTF-8)")
    if b"\x00" in line:
        raise ValueError(f"{path}:{lineno}: binary data, not JSON text")
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        # NOTE: text with a few bad bytes is "not UTF-8"; mostly control bytes is "binary".
        printable = sum(32 <= b < 127 or b in b"\t\r\n" for b in line)
        if printable < 0.7 * len(line):
            raise ValueError(f"{path}:{lineno}: binary data, not JSON text") from None
        raise ValueError(f"{path}:{lineno}: not UTF-8 text") from None


def records(path: Path, fields: tuple[str, ...]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; ValueError names file, line and field."""
    with open_trace_file(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            rec = parse_record(path, lineno, line, fields)
            if rec is not None:
                yield lineno, rec


def parse_record(path: Path, lineno: int, line: bytes, fields: tuple[str, ...]) -> dict[str, Any] | None:
    """One line as a JSON object holding fields (None if blank); ValueError names file, line and field."""
    if not line.strip():
        return None
    try:
        # NOTE: decoding first spares json.loads its per-call encoding sniff on bytes.
        rec = json.loads(decode_line(path, lineno, line))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise ValueError(f"{path}:{lineno}: not valid JSON (nested too deeply)") from None
    if not isinstance(rec, dict):
        raise ValueError(f"{path}:{lineno}: expected a JSON object")
    if not rec.keys() >= set(fields):
        missing = next(f for f in fields if f not in rec)
        raise ValueError(f"{path}:{lineno}: missing field {missing!r}")
    return rec


def int_list(path: Path, lineno: int, rec: dict[str, Any], field: str) -> list[int]:
    """rec[field] as a list of ints, or a ValueError naming where."""
    value = rec[field]
    # NOTE: set(map(type, …)) runs in C (10× a per-element isinstance loop) and rejects bools,
    # whose type is bool, not int.
    if not isinstance(value, list) or not set(map(type, value)) <= {int}:
        raise ValueError(f"{path}:{lineno}: field {field!r} must be a list of integers")
    if value and not (min(value) >= INT64_MIN and max(value) <= INT64_MAX):
        raise ValueError(f"{path}:{lineno}: field {field!r} holds an id outside the 64-bit integer range")
    return value


def number(path: Path, lineno: int, rec: dict[str, Any], field: str) -> float:
    """rec[field] as a non-negative finite number (within int64), or a ValueError naming where."""
    value = rec[field]
    # NOTE: the range test comes first: math.isfinite(10**400) raises OverflowError.
    if (
        not isinstance(value, (int, float))
        or isinstance(value, bool)
        or not -INT64_MAX <= value <= INT64_MAX
        or not math.isfinite(value)
        or value < 0
    ):
        raise ValueError(
            f"{path}:{lineno}: field {field!r} must be a non-negative number below 2**63, got {_short(value)}"
        )
    return float(value)


def count(path: Path, lineno: int, rec: dict[str, Any], field: str) -> int:
    """rec[field] as a token count: a non-negative integer below 2**63, or a ValueError naming where."""
    value = number(path, lineno, rec, field)
    if value >= 2.0**63:  # NOTE: float(2**63 - 1) rounds up to 2**63, which no int64 holds
        raise ValueError(
            f"{path}:{lineno}: field {field!r} must be a non-negative number below 2**63, "
            f"got {_short(rec[field])}"
        )
    return int(value)


def positive_int(
    path: Path, lineno: int, rec: dict[str, Any], field: str, default: int, maximum: int = INT32_MAX
) -> int:
    """rec[field] (or default when absent) as an integer in 1..maximum, or a ValueError naming where."""
    value = rec.get(field, default)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= maximum:
        raise ValueError(
            f"{path}:{lineno}: field {field!r} must be an integer from 1 to {maximum:,}, got {_short(value)}"
        )
    return value


def require_requests(path: Path, num_requests: int) -> None:
    """ValueError when a file held no requests at all."""
    if num_requests == 0:
        raise ValueError(f"{path}: no requests")


def _short(value: Any) -> str:
    """repr of a bad value, cut so a huge number or string keeps the error one short line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
