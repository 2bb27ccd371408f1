"""Alibaba Bailian JSONL: chat_id, parent_chat_id, timestamp (s), lengths, type, turn, hash_ids.

Sessions follow the parent_chat_id chain to its root (a parent of -1 or null starts a session);
block ids cover 16-token blocks.
"""

from __future__ import annotations

from array import array
from pathlib import Path

import numpy as np

from dashboard.core.types import Trace
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.readers.jsonl import (
    count,
    int_list,
    number,
    positive_int,
    records,
    require_requests,
)

BLOCK_TOKENS = 16
FIELDS = ("chat_id", "timestamp", "input_length", "output_length", "hash_ids")


def read_bailian(path: str | Path, block_tokens: int = BLOCK_TOKENS) -> Trace:
    """Read a Bailian trace, streaming, with sessions from the chat chains."""
    path = Path(path)
    ts, inp, out, counts, ids = array("d"), array("q"), array("q"), array("q"), array("q")
    sessions, turns, types = array("q"), array("i"), array("h")
    root_of: dict[object, int] = {}
    type_names: dict[str, int] = {}
    for lineno, rec in records(path, FIELDS):
        hash_ids = int_list(path, lineno, rec, "hash_ids")
        chat, parent = rec["chat_id"], rec.get("parent_chat_id", -1)
        if (
            not isinstance(chat, (int, str))
            or isinstance(chat, bool)
            or not isinstance(parent, (int, str, type(None)))
        ):
            raise ValueError(
                f"{path}:{lineno}: fields 'chat_id'/'parent_chat_id' must be integers or strings"
            )
        if parent in (-1, None, ""):
            session = len(root_of)
        elif parent in root_of:
            session = root_of[parent]
        else:
            raise ValueError(f"{path}:{lineno}: field 'parent_chat_id' {parent!r} names no earlier chat")
        root_of[chat] = session
        ts.append(number(path, lineno, rec, "timestamp"))
        inp.append(count(path, lineno, rec, "input_length"))
        out.append(count(path, lineno, rec, "output_length"))
        counts.append(len(hash_ids))
        ids.extend(hash_ids)
        sessions.append(session)
        turns.append(positive_int(path, lineno, rec, "turn", 1) - 1)
        types.append(type_names.setdefault(str(rec.get("type", "text")), len(type_names)))
    require_requests(path, len(ts))
    arrivals = np.frombuffer(ts, np.float64)
    return build_trace(
        arrival_s=arrivals - arrivals.min(),
        block_counts=np.frombuffer(counts, np.int64),
        raw_block_ids=np.frombuffer(ids, np.int64),
        input_tokens=np.frombuffer(inp, np.int64),
        output_tokens=np.frombuffer(out, np.int64),
        block_tokens=block_tokens,
        source=str(path),
        session_ids=np.frombuffer(sessions, np.int64),
        turns=np.frombuffer(turns, np.int32),
        type_codes=np.frombuffer(types, np.int16),
        type_names=tuple(type_names),
    )
