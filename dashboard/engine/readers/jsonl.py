"""Shared JSON Lines plumbing: parse each line with file:line errors, check required fields."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def records(path: Path, fields: tuple[str, ...]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; ValueError names file, line and field."""
    required = frozenset(fields)
    with path.open("rb") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                # NOTE: decoding first spares json.loads its per-call encoding sniff on bytes.
                rec = json.loads(line.decode("utf-8"))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
            except UnicodeDecodeError:
                raise ValueError(f"{path}:{lineno}: not UTF-8 text") from None
            if not isinstance(rec, dict):
                raise ValueError(f"{path}:{lineno}: expected a JSON object")
            if not required <= rec.keys():
                missing = next(f for f in fields if f not in rec)
                raise ValueError(f"{path}:{lineno}: missing field {missing!r}")
            yield lineno, rec


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
    """rec[field] as a number, or a ValueError naming where."""
    value = rec[field]
    if (
        not isinstance(value, (int, float))
        or isinstance(value, bool)
        or not math.isfinite(value)
        or value < 0
    ):
        raise ValueError(f"{path}:{lineno}: field {field!r} must be a non-negative number, got {value!r}")
    return float(value)


def positive_int(path: Path, lineno: int, rec: dict[str, Any], field: str, default: int) -> int:
    """rec[field] (or default when absent) as a positive integer, or a ValueError naming where."""
    value = rec.get(field, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{path}:{lineno}: field {field!r} must be a positive integer, got {value!r}")
    return value


def require_requests(path: Path, num_requests: int) -> None:
    """ValueError when a file held no requests at all."""
    if num_requests == 0:
        raise ValueError(f"{path}: no requests")
