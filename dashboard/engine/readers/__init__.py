"""Trace readers: every format becomes one canonical Trace (see canonical.build_trace).

READERS is the one registry of formats; read_trace picks one by name or by sniffing the file.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path

from dashboard.core.types import Trace

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
    if not path.is_file():
        raise ValueError(f"{path}: no such trace file")
    fmt = fmt or sniff_format(path)
    read = reader(fmt)
    return read(path) if block_tokens is None else read(path, block_tokens=block_tokens)


def sniff_format(path: Path) -> str:
    """Guess the format from the extension and the first JSON line."""
    if path.suffix == ".parquet":
        return "canonical"
    if path.suffix == ".csv":
        raise ValueError(
            f"{path}: CSV request logs (e.g. the Azure LLM traces) carry no prefix hashes, "
            "so prefix-cache replays cannot use them"
        )
    with path.open("rb") as fh:
        first = fh.readline()
    try:
        rec = json.loads(first)
    except json.JSONDecodeError:
        raise ValueError(f"{path}:1: cannot tell the trace format; pass --format") from None
    if isinstance(rec, dict) and "hash_ids" in rec:
        return "bailian" if "chat_id" in rec else "mooncake"
    if isinstance(rec, dict) and "messages" in rec:
        return "openai-chat"
    raise ValueError(f"{path}:1: cannot tell the trace format; pass --format ({', '.join(READERS)})")
