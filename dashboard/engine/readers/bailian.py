"""Alibaba Bailian JSONL: chat_id, parent_chat_id, timestamp (s), lengths, type, turn, hash_ids.

Sessions follow the parent_chat_id chain to its root (a parent of -1 or null starts a session);
block ids cover 16-token blocks.

A file whose every line holds all eight fields as the compiled scan reads them (integer chat ids,
a string type) is read by it (scan.py), its sessions and checks worked out on the arrays; any other
file, or one with an error anywhere, is read by the json path, which reads it or raises its
file:line:field error, so both give the same (tests/readers/test_bailian_scan.py).
"""

from __future__ import annotations

from array import array
from pathlib import Path

import numpy as np
from numba import njit

from dashboard.core.types import Trace
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.readers.intern import dense_ids
from dashboard.engine.readers.jsonl import (
    INT32_MAX,
    count,
    int_list,
    number,
    positive_int,
    records,
    require_requests,
)
from dashboard.engine.readers.scan import scan_jsonl
from dashboard.engine.readers.scan_kernel import INTEGER, LIST, NUMBER, TEXT

BLOCK_TOKENS = 16
FIELDS = ("chat_id", "timestamp", "input_length", "output_length", "hash_ids")
SCANNED = (
    "chat_id",
    "parent_chat_id",
    "timestamp",
    "input_length",
    "output_length",
    "type",
    "turn",
    "hash_ids",
)
KINDS = (INTEGER, INTEGER, NUMBER, NUMBER, NUMBER, TEXT, INTEGER, LIST)
CHAT, PARENT, TIMESTAMP, INPUT, OUTPUT, TYPE, TURN = range(7)  # columns of the scan's values


class _NotScanned(Exception):
    """A line the compiled scan leaves to Python: the json path reads the whole file."""


def _leave_to_json(path: Path, lineno: int, rec: dict) -> tuple[list[float], list[int]]:
    raise _NotScanned


def read_bailian(path: str | Path, block_tokens: int = BLOCK_TOKENS) -> Trace:
    """Read a Bailian trace, with sessions from the chat chains: the compiled scan, else the json path."""
    path = Path(path)
    try:
        trace = _read_scanned(path, block_tokens)
    except (_NotScanned, ValueError):
        trace = None  # NOTE: the json path raises the first error in the file, or reads what the scan left
    return trace if trace is not None else _read_json(path, block_tokens)


def _read_scanned(path: Path, block_tokens: int) -> Trace | None:
    """The trace as the compiled scan reads it, or None where the json path must decide."""
    cols = scan_jsonl(path, SCANNED, KINDS, _leave_to_json)
    values = cols.values
    turns = values[:, TURN]
    if not values.shape[0] or not np.all((turns >= 1) & (turns <= INT32_MAX)):
        return None
    sessions = chat_sessions(values[:, CHAT].astype(np.int64), values[:, PARENT].astype(np.int64))
    if sessions is None:
        return None
    arrivals = values[:, TIMESTAMP]
    return build_trace(
        arrival_s=arrivals - arrivals.min(),
        block_counts=cols.counts,
        raw_block_ids=cols.block_ids,
        num_blocks=cols.num_blocks,
        input_tokens=values[:, INPUT].astype(np.int64),
        output_tokens=values[:, OUTPUT].astype(np.int64),
        block_tokens=block_tokens,
        source=str(path),
        session_ids=sessions,
        turns=(turns - 1).astype(np.int32),
        type_codes=values[:, TYPE].astype(np.int16),
        type_names=cols.texts,
    )


def chat_sessions(chat: np.ndarray, parent: np.ndarray) -> np.ndarray | None:
    """Each chat's session as the json path numbers it (a root's: how many distinct chats came
    before; else its parent's latest), or None if a parent names no earlier chat."""
    n = chat.shape[0]
    dense, _ = dense_ids(np.concatenate([chat, parent]))
    sessions, bad = _sessions(dense[:n], dense[n:], parent == -1, int(dense[:n].max()) + 1)
    return None if bad >= 0 else sessions


@njit(cache=True)
def _sessions(chat: np.ndarray, parent: np.ndarray, is_root: np.ndarray, num_chats: int) -> tuple:
    """(session per row, the first row whose parent is no earlier chat or -1); chat and parent as
    dense ids of one numbering, the chats' first."""
    n = chat.shape[0]
    latest = np.full(num_chats, -1, np.int64)
    sessions = np.empty(n, np.int64)
    distinct = 0
    for i in range(n):
        if is_root[i]:
            s = distinct
        elif parent[i] < num_chats and latest[parent[i]] >= 0:
            s = latest[parent[i]]
        else:
            return sessions, i
        sessions[i] = s
        latest[chat[i]] = s
        if chat[i] == distinct:  # NOTE: dense ids come in order of first appearance
            distinct += 1
    return sessions, -1


def _read_json(path: Path, block_tokens: int) -> Trace:
    """The json path: a Bailian trace record by record, every error naming file, line and field."""
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
