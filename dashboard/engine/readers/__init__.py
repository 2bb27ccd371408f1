"""Trace readers: every format becomes one canonical Trace (see canonical.build_trace).

READERS is the one registry of formats; read_trace picks one by name or by sniffing the file.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path

from dashboard.core.types import Trace
from dashboard.engine.readers.jsonl import UTF16_BOMS, decode_line, open_trace_file

# NOTE: format → (module, function), imported on first use: the parquet reader pulls in
# pyarrow.compute (~0.1 s), which a JSONL replay never needs.
READERS: dict[str, tuple[str, str]] = {
    "mooncake": ("dashboard.engine.readers.mooncake", "read_mooncake"),
    "bailian": ("dashboard.engine.readers.bailian", "read_bailian"),
    "canonical": ("dashboard.engine.readers.parquet", "read_requests_parquet"),
    "openai-chat": ("dashboard.engine.readers.openai_chat", "read_openai_chat"),
}


def reader(fmt: str) -> Callable[..., Trace]:
    """The reader function of a format (ValueError listing the known formats)."""
    if fmt not in READERS:
        raise ValueError(f"unknown trace format {fmt!r}; known: {', '.join(READERS)}")
    module, function = READERS[fmt]
    return getattr(importlib.import_module(module), function)


def read_trace(path: str | Path, fmt: str | None = None, block_tokens: int | None = None) -> Trace:
    """Read a trace file in format fmt (or the sniffed one); block_tokens overrides the default."""
    path = Path(path)
    check_trace_file(path)
    fmt = fmt or sniff_format(path)
    read = reader(fmt)
    return read(path) if block_tokens is None else read(path, block_tokens=block_tokens)


def check_trace_file(path: Path) -> None:
    """ValueError unless path is an existing regular file (a directory is named as one)."""
    if path.is_dir():
        raise ValueError(f"{path}: is a directory, not a trace file")
    if not path.is_file():
        raise ValueError(f"{path}: no such trace file")


def sniff_format(path: Path) -> str:
    """Guess the format from the extension and the first non-blank JSON line."""
    check_trace_file(path)
    if path.suffix == ".parquet":
        return "canonical"
    if path.suffix == ".csv":
        raise ValueError(
            f"{path}: CSV request logs (e.g. the Azure LLM traces) carry no prefix hashes, "
            "so prefix-cache replays cannot use them"
        )
    lineno, first = _first_line(path)
    try:
        rec = json.loads(decode_line(path, lineno, first))
    except (json.JSONDecodeError, RecursionError):
        raise ValueError(f"{path}:{lineno}: cannot tell the trace format; pass --format") from None
    if isinstance(rec, dict) and "hash_ids" in rec:
        return "bailian" if "chat_id" in rec else "mooncake"
    if isinstance(rec, dict) and "messages" in rec:
        return "openai-chat"
    raise ValueError(f"{path}:{lineno}: cannot tell the trace format; pass --format ({', '.join(READERS)})")


def _first_line(path: Path) -> tuple[int, bytes]:
    """The first non-blank line and its number; an empty file holds no requests."""
    with open_trace_file(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            if line.strip() or (lineno == 1 and line.startswith(UTF16_BOMS)):
                return lineno, line
    raise ValueError(f"{path}: no requests")
