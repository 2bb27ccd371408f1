"""Shared JSON Lines plumbing: parse each line with file:line errors, check required fields."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def records(path: Path, fields: tuple[str, ...]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; ValueError names file, line and field."""
    with path.open("rb") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
            if not isinstance(rec, dict):
                raise ValueError(f"{path}:{lineno}: expected a JSON object")
            missing = [f for f in fields if f not in rec]
            if missing:
                raise ValueError(f"{path}:{lineno}: missing field {missing[0]!r}")
            yield lineno, rec


def int_list(path: Path, lineno: int, rec: dict[str, Any], field: str) -> list[int]:
    """rec[field] as a list of ints, or a ValueError naming where."""
    value = rec[field]
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ValueError(f"{path}:{lineno}: field {field!r} must be a list of integers")
    return value


def number(path: Path, lineno: int, rec: dict[str, Any], field: str) -> float:
    """rec[field] as a number, or a ValueError naming where."""
    value = rec[field]
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{path}:{lineno}: field {field!r} must be a non-negative number, got {value!r}")
    return float(value)
