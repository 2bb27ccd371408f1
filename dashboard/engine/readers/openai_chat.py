"""OpenAI-style chat logs: JSONL of {messages, session_id?, timestamp?, output_tokens?}.

Text becomes tokens by a deterministic approximation (no tokenizer is required): the chat
template renders each message as `<|role|>`, its content's word pieces, `<|end|>`, in order,
so a later turn's prompt extends the earlier one's token for token. Content is split on the
regex `\\w+|[^\\w\\s]` (words and single punctuation marks, whitespace dropped) and every piece
longer than 4 characters is cut into 4-character tokens (about chars/4, like BPE on English).
Blocks of block_tokens tokens (the last one may be partial) get chained ids:
blake2b-64(parent id bytes + the block's tokens), so equal prefixes give equal ids.
"""

from __future__ import annotations

import hashlib
import re
from array import array
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from dashboard.core.types import UNKNOWN, Trace
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.readers.jsonl import INT64_MAX, records, require_requests

BLOCK_TOKENS = 16
CHARS_PER_TOKEN = 4
_PIECE = re.compile(r"\w+|[^\w\s]")
_ROOT = b"\x00" * 8


def tokenize(text: str) -> list[str]:
    """The approximate tokens of text: word/punctuation pieces cut into 4-character chunks."""
    tokens = []
    for piece in _PIECE.findall(text):
        tokens.extend(piece[i : i + CHARS_PER_TOKEN] for i in range(0, len(piece), CHARS_PER_TOKEN))
    return tokens


def render_chat(messages: list[dict[str, Any]]) -> list[str]:
    """The token stream of the chat template: per message `<|role|>`, content tokens, `<|end|>`."""
    tokens: list[str] = []
    for msg in messages:
        tokens.append(f"<|{msg['role']}|>")
        tokens.extend(tokenize(msg["content"]))
        tokens.append("<|end|>")
    return tokens


def chained_block_ids(tokens: list[str], block_tokens: int) -> list[int]:
    """Chained 64-bit ids of consecutive block_tokens-token blocks (the last may be partial)."""
    ids, parent = [], _ROOT
    for start in range(0, len(tokens), block_tokens):
        h = hashlib.blake2b(parent, digest_size=8)
        h.update("\x1f".join(tokens[start : start + block_tokens]).encode())
        parent = h.digest()
        ids.append(int.from_bytes(parent, "little", signed=True))
    return ids


def read_openai_chat(path: str | Path, block_tokens: int = BLOCK_TOKENS) -> Trace:
    """Read a chat log, streaming; sessions from session_id when present, else unknown."""
    path = Path(path)
    ts, inp, out, counts, ids = array("d"), array("q"), array("q"), array("q"), array("q")
    sessions, codes = array("q"), {}
    has_ts: bool | None = None
    for lineno, rec in records(path, ("messages",)):
        prompt, reply = _split_reply(path, lineno, rec["messages"])
        tokens = render_chat(prompt)
        block_ids = chained_block_ids(tokens, block_tokens)
        if has_ts is None:
            has_ts = "timestamp" in rec
        elif has_ts != ("timestamp" in rec):
            raise ValueError(f"{path}:{lineno}: field 'timestamp' must be on every line or on none")
        ts.append(_seconds(path, lineno, rec["timestamp"]) if has_ts else float(len(ts)))
        inp.append(len(tokens))
        out.append(_output_tokens(path, lineno, rec, reply))
        counts.append(len(block_ids))
        ids.extend(block_ids)
        sid = rec.get("session_id")
        sessions.append(UNKNOWN if sid is None else codes.setdefault(str(sid), len(codes)))
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
        session_ids=np.frombuffer(sessions, np.int64) if codes else None,
    )


def _split_reply(path: Path, lineno: int, messages: Any) -> tuple[list[dict[str, Any]], dict | None]:
    """Validate messages; a final assistant message is the reply, not part of the prompt."""
    if not isinstance(messages, list) or not messages:
        raise ValueError(f"{path}:{lineno}: field 'messages' must be a non-empty list")
    for k, msg in enumerate(messages):
        if (
            not isinstance(msg, dict)
            or not isinstance(msg.get("role"), str)
            or not isinstance(msg.get("content"), str)
        ):
            raise ValueError(f"{path}:{lineno}: field 'messages[{k}]' must be {{role: str, content: str}}")
    if len(messages) > 1 and messages[-1]["role"] == "assistant":
        return messages[:-1], messages[-1]
    return messages, None


def _output_tokens(path: Path, lineno: int, rec: dict[str, Any], reply: dict | None) -> int:
    """output_tokens if given, else the approximate length of the reply (0 without one)."""
    value = rec.get("output_tokens")
    if value is None:
        return len(tokenize(reply["content"])) if reply else 0
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= INT64_MAX:
        raise ValueError(
            f"{path}:{lineno}: field 'output_tokens' must be a non-negative integer below 2**63, "
            f"got {str(value)[:40]}"
        )
    return value


def _seconds(path: Path, lineno: int, value: Any) -> float:
    """Epoch seconds from a finite number or ISO-8601 text."""
    # NOTE: the range test also refuses NaN and ±inf, and spares float(10**400) its OverflowError.
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) <= INT64_MAX:
        return float(value)
    if isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
            # NOTE: text without a zone is UTC, never the machine's local time.
            return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp()
        except ValueError:
            pass
    raise ValueError(
        f"{path}:{lineno}: field 'timestamp' must be epoch seconds or ISO-8601 text, got {str(value)[:40]}"
    )
