"""The sample chat workload at scale: ~10^8 block accesses generated in vectorised passes.

Same story as workload.py (tenants with shared system prompts and few-shot examples, multi-turn
sessions whose prompts extend the previous turn's, a fresh id for each prompt's partial last
block), drawn column by column instead of turn by turn, so 100M block accesses take seconds.
Prefix lengths are kept in tokens: with 16-token blocks a system prompt spans 4× the blocks it
spans at the sample's 64. The random draws differ from generate_workload's, so the two agree in
distribution, not draw for draw. Deterministic for a seed and a size.

write_mooncake_jsonl writes any such trace in the Mooncake FAST'25 format (timestamp in ms,
hash_ids as small integers, like the published traces), formatted by a compiled writer.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from numba import njit

from dashboard.sim.workload import BLOCK_TOKENS as SAMPLE_BLOCK_TOKENS
from dashboard.sim.workload import WorkloadSpec, session_starts

SCALE_BLOCK_TOKENS = 16
FORMAT_VERSION = 1  # bump when the generator's output changes, so cached files are remade


@dataclass(frozen=True)
class ScaleColumns:
    """A generated trace as Mooncake-style columns: raw ids are small integers, not yet dense."""

    arrival_ms: np.ndarray  # int64 [n], sorted
    input_tokens: np.ndarray  # int64 [n]
    output_tokens: np.ndarray  # int64 [n]
    offsets: np.ndarray  # int64 [n+1]
    hash_ids: np.ndarray  # int64 [offsets[-1]]
    session_ids: np.ndarray  # int64 [n]; not written (Mooncake JSONL has no sessions)

    @property
    def num_requests(self) -> int:
        """Number of requests."""
        return int(self.arrival_ms.shape[0])

    @property
    def num_block_accesses(self) -> int:
        """Total hash ids over all requests."""
        return int(self.offsets[-1])


def scale_spec(block_tokens: int = SCALE_BLOCK_TOKENS) -> WorkloadSpec:
    """The sample's WorkloadSpec with prefix lengths kept in tokens at block_tokens."""
    base = WorkloadSpec()
    k = max(1, SAMPLE_BLOCK_TOKENS // block_tokens)
    return replace(
        base,
        block_tokens=block_tokens,
        system_blocks=(base.system_blocks[0] * k, base.system_blocks[1] * k),
        fewshot_blocks=(base.fewshot_blocks[0] * k, base.fewshot_blocks[1] * k),
    )


def _prefixes(rng: np.random.Generator, spec: WorkloadSpec) -> tuple[np.ndarray, np.ndarray]:
    """Shared prefixes, one per (tenant, variant): flat ids and offsets (row = tenant * variants + v)."""
    rows, next_id = [], 0
    for _ in range(spec.num_tenants):
        system = np.arange(next_id, next_id + rng.integers(*spec.system_blocks, endpoint=True))
        next_id = int(system[-1]) + 1
        for _ in range(spec.num_fewshot_variants):
            shots = np.arange(next_id, next_id + rng.integers(*spec.fewshot_blocks, endpoint=True))
            next_id = int(shots[-1]) + 1
            rows.append(np.concatenate([system, shots]))
    offsets = np.concatenate([[0], np.cumsum([r.size for r in rows])]).astype(np.int64)
    return np.concatenate(rows).astype(np.int64), offsets


def _segment_exclusive_cumsum(values: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Per segment (first[i] marks a segment's start), the sum of the earlier values in it."""
    total = np.cumsum(values) - values
    return total - np.maximum.accumulate(np.where(first, total, 0))


def generate_scale_columns(seed: int, num_accesses: int, spec: WorkloadSpec | None = None) -> ScaleColumns:
    """The first requests (by arrival) whose block accesses reach num_accesses; deterministic for a seed."""
    spec = spec or scale_spec()
    rng = np.random.default_rng(seed)
    prefix_ids, prefix_offsets = _prefixes(rng, spec)
    tenant_weights = rng.dirichlet(np.full(spec.num_tenants, 2.0))
    # NOTE: enough hours for the target at the sample's load (with margin); the surplus is cut below.
    per_session = _mean_accesses_per_session(spec, prefix_offsets)
    hours = 1.3 * num_accesses / (spec.sessions_per_s * 3600.0 * per_session) + 1.0
    spec = replace(spec, duration_s=hours * 3600.0)
    t0 = session_starts(rng, spec)
    num_sessions = t0.size
    tenant = rng.choice(spec.num_tenants, size=num_sessions, p=tenant_weights)
    variant = rng.integers(spec.num_fewshot_variants, size=num_sessions)
    prefix_row = tenant * spec.num_fewshot_variants + variant
    num_turns = rng.geometric(1.0 / spec.mean_turns, size=num_sessions)
    session = np.repeat(np.arange(num_sessions), num_turns)
    first = np.zeros(session.size, bool)
    first[np.cumsum(num_turns) - num_turns] = True
    message = np.maximum(
        8, rng.lognormal(np.log(spec.mean_message_tokens), 0.6, session.size).astype(np.int64)
    )
    answer = np.maximum(4, rng.lognormal(np.log(spec.mean_answer_tokens), 0.7, session.size).astype(np.int64))
    think = rng.exponential(spec.mean_think_s, session.size) + 2.0
    arrival = t0[session] + _segment_exclusive_cumsum(think, first)
    body = _segment_exclusive_cumsum(message + answer, first) + message
    keep = arrival < spec.duration_s
    return _assemble(
        spec, prefix_ids, prefix_offsets, prefix_row, session, arrival, body, answer, keep, num_accesses
    )


def _mean_accesses_per_session(spec: WorkloadSpec, prefix_offsets: np.ndarray) -> float:
    """Rough expected block accesses of one session (for sizing the duration only)."""
    bt = spec.block_tokens
    turn_growth = (spec.mean_message_tokens + spec.mean_answer_tokens) * 1.15 / bt
    turns = spec.mean_turns
    mean_sq = (1 - 1 / turns) * turns**2 + turns**2  # E[T^2] of a geometric with mean T
    prefix = float(np.mean(np.diff(prefix_offsets)))
    return turns * (prefix + 1) + turn_growth * (mean_sq - turns) / 2


def _assemble(
    spec, prefix_ids, prefix_offsets, prefix_row, session, arrival, body, answer, keep, num_accesses
):
    """Sort kept turns by arrival, cut at num_accesses, number session blocks, lay out hash_ids."""
    bt = spec.block_tokens
    session, arrival, body, answer = session[keep], arrival[keep], body[keep], answer[keep]
    row = prefix_row[session]
    prefix_len = np.diff(prefix_offsets)[row]
    full = body // bt
    partial = (body % bt > 0).astype(np.int64)
    order = np.argsort(arrival, kind="stable")
    counts = (prefix_len + full + partial)[order]
    cut = int(np.searchsorted(np.cumsum(counts), num_accesses)) + 1
    order = order[:cut]
    session, arrival, body, answer, row = (
        session[order],
        arrival[order],
        body[order],
        answer[order],
        row[order],
    )
    full, partial = full[order], partial[order]
    # Session s owns ids [base[s], base[s] + its deepest full block) then one id per partial block.
    num_sessions = int(session.max()) + 1
    deepest = np.zeros(num_sessions, np.int64)
    np.maximum.at(deepest, session, full)
    partials = np.bincount(session, weights=partial, minlength=num_sessions).astype(np.int64)
    span = deepest + partials
    base = int(prefix_ids.max()) + 1 + np.cumsum(span) - span
    partial_rank = _rank_within_session(session, partial, num_sessions)
    counts = (np.diff(prefix_offsets)[row] + full + partial).astype(np.int64)
    offsets = np.zeros(counts.size + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    ids = np.empty(int(offsets[-1]), np.int64)
    _lay_out_ids(
        offsets, prefix_ids, prefix_offsets, row, base[session], full, partial,
        base[session] + deepest[session] + partial_rank, ids,
    )  # fmt: skip
    return ScaleColumns(
        arrival_ms=np.round(arrival * 1000.0).astype(np.int64),
        input_tokens=np.diff(prefix_offsets)[row] * bt + body,
        output_tokens=answer,
        offsets=offsets,
        hash_ids=ids,
        session_ids=session,
    )


def _rank_within_session(session: np.ndarray, partial: np.ndarray, num_sessions: int) -> np.ndarray:
    """For each request (in arrival order), how many earlier requests of its session had a partial block."""
    order = np.argsort(session, kind="stable")
    seen = np.cumsum(partial[order]) - partial[order]
    starts = np.zeros(num_sessions, np.int64)
    sizes = np.bincount(session, weights=partial, minlength=num_sessions).astype(np.int64)
    starts[1:] = np.cumsum(sizes)[:-1]
    rank = np.empty_like(seen)
    rank[order] = seen - starts[session[order]]
    return rank


@njit(cache=True)
def _lay_out_ids(offsets, prefix_ids, prefix_offsets, row, own_base, full, partial, partial_id, out):
    """Each request's ids: its shared prefix, its session's full blocks, then its partial block."""
    for i in range(offsets.shape[0] - 1):
        k = offsets[i]
        for j in range(prefix_offsets[row[i]], prefix_offsets[row[i] + 1]):
            out[k] = prefix_ids[j]
            k += 1
        for j in range(full[i]):
            out[k] = own_base[i] + j
            k += 1
        if partial[i]:
            out[k] = partial_id[i]


@njit(cache=True)
def _put_int(buf: np.ndarray, k: int, value: int) -> int:
    """Write value in decimal at buf[k:]; return the next free index."""
    if value < 0:
        buf[k] = 45  # '-'
        k += 1
        value = -value
    digits = 1
    rest = value
    while rest >= 10:
        rest //= 10
        digits += 1
    for d in range(digits - 1, -1, -1):
        buf[k + d] = 48 + value % 10
        value //= 10
    return k + digits


@njit(cache=True)
def _put_text(buf: np.ndarray, k: int, text: np.ndarray) -> int:
    for j in range(text.shape[0]):
        buf[k + j] = text[j]
    return k + text.shape[0]


_TS = np.frombuffer(b'{"timestamp": ', np.uint8)
_INPUT = np.frombuffer(b', "input_length": ', np.uint8)
_OUTPUT = np.frombuffer(b', "output_length": ', np.uint8)
_IDS = np.frombuffer(b', "hash_ids": [', np.uint8)
_SEP = np.frombuffer(b", ", np.uint8)
_END = np.frombuffer(b"]}\n", np.uint8)


@njit(cache=True)
def _format_lines(lo, hi, arrival_ms, inp, out, offsets, ids, buf, ts, i_key, o_key, ids_key, sep, end):
    """Requests lo..hi-1 as Mooncake JSON lines into buf; returns the bytes written."""
    k = 0
    for i in range(lo, hi):
        k = _put_text(buf, k, ts)
        k = _put_int(buf, k, arrival_ms[i])
        k = _put_text(buf, k, i_key)
        k = _put_int(buf, k, inp[i])
        k = _put_text(buf, k, o_key)
        k = _put_int(buf, k, out[i])
        k = _put_text(buf, k, ids_key)
        for j in range(offsets[i], offsets[i + 1]):
            if j > offsets[i]:
                k = _put_text(buf, k, sep)
            k = _put_int(buf, k, ids[j])
        k = _put_text(buf, k, end)
    return k


def write_mooncake_jsonl(path: Path, cols: ScaleColumns, requests_per_chunk: int = 20_000) -> None:
    """Write cols as Mooncake JSONL (json.dumps spacing), atomically: a partial file never has path's name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as fh:
            for lo in range(0, cols.num_requests, requests_per_chunk):
                hi = min(lo + requests_per_chunk, cols.num_requests)
                # NOTE: 21 bytes bound a decimal int64 plus its separator; 80 the fixed text of a line.
                size = 21 * int(cols.offsets[hi] - cols.offsets[lo]) + 80 * (hi - lo)
                buf = np.empty(size, np.uint8)
                n = _format_lines(
                    lo, hi, cols.arrival_ms, cols.input_tokens, cols.output_tokens, cols.offsets,
                    cols.hash_ids, buf, _TS, _INPUT, _OUTPUT, _IDS, _SEP, _END,
                )  # fmt: skip
                fh.write(buf[:n].tobytes())
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def default_cache_dir() -> Path:
    """Where generated scale traces are kept: $XDG_CACHE_HOME/kvscope/bench (never in the repo)."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "kvscope" / "bench"


def scale_trace_file(seed: int = 0, num_accesses: int = 100_000_000, cache_dir: Path | None = None) -> Path:
    """The Mooncake JSONL file of the scale workload, generated once and reused (16-token blocks)."""
    path = (cache_dir or default_cache_dir()) / f"chat-scale-s{seed}-{num_accesses}-v{FORMAT_VERSION}.jsonl"
    if not path.is_file():
        write_mooncake_jsonl(path, generate_scale_columns(seed, num_accesses))
    return path
