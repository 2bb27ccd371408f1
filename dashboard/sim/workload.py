"""A seeded multi-tenant chat workload: shared system prompts, multi-turn sessions, a daily rhythm.

Each tenant has a system prompt and few-shot examples shared by all its sessions (whole blocks,
so they are reusable prefixes). A session's turn t sends system + few-shot + the conversation so
far (every earlier message and answer) + a new message, so each turn's prompt extends the
previous one's. Full blocks of a session's history keep their id across turns; a prompt's last,
partial block gets a fresh id (vLLM caches full blocks only).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dashboard.core.types import Trace
from dashboard.engine.readers.canonical import build_trace

BLOCK_TOKENS = 64  # vLLM 0.34's default block size


@dataclass(frozen=True)
class WorkloadSpec:
    """Knobs of the generator; defaults give a realistically loaded 8-pod chat cluster."""

    duration_s: float = 6 * 3600.0
    sessions_per_s: float = 0.5
    num_tenants: int = 6
    mean_turns: float = 6.0
    mean_think_s: float = 40.0
    system_blocks: tuple[int, int] = (12, 40)  # per-tenant system prompt, blocks (min, max)
    fewshot_blocks: tuple[int, int] = (4, 16)
    num_fewshot_variants: int = 2
    mean_message_tokens: float = 180.0
    mean_answer_tokens: float = 320.0
    diurnal_amplitude: float = 0.3
    burst: tuple[float, float, float] | None = None  # (start_s, end_s, rate multiplier)
    burst_document_tokens: float = 4000.0  # a burst session opens with a pasted document this long
    block_tokens: int = BLOCK_TOKENS


def session_starts(rng: np.random.Generator, spec: WorkloadSpec) -> np.ndarray:
    """Session arrival times from a Poisson process thinned by the daily curve and the burst."""
    peak = spec.sessions_per_s * (1 + spec.diurnal_amplitude) * (spec.burst[2] if spec.burst else 1.0)
    n = rng.poisson(peak * spec.duration_s)
    t = np.sort(rng.uniform(0.0, spec.duration_s, n))
    rate = spec.sessions_per_s * (1 + spec.diurnal_amplitude * np.sin(2 * np.pi * (t / 86400.0 - 0.25)))
    if spec.burst is not None:
        start, end, factor = spec.burst
        rate = np.where((t >= start) & (t < end), rate * factor, rate)
    return t[rng.uniform(0.0, peak, n) < rate]


def _tenant_prefixes(rng: np.random.Generator, spec: WorkloadSpec) -> list[list[np.ndarray]]:
    """Per tenant, per few-shot variant: the shared prefix's raw block ids."""
    prefixes, next_id = [], 1
    for _ in range(spec.num_tenants):
        system = np.arange(next_id, next_id + rng.integers(*spec.system_blocks, endpoint=True))
        next_id = int(system[-1]) + 1
        variants = []
        for _ in range(spec.num_fewshot_variants):
            shots = np.arange(next_id, next_id + rng.integers(*spec.fewshot_blocks, endpoint=True))
            next_id = int(shots[-1]) + 1
            variants.append(np.concatenate([system, shots]))
        prefixes.append(variants)
    return prefixes


def generate_workload(seed: int, spec: WorkloadSpec = WorkloadSpec()) -> Trace:
    """The trace of every turn of every session, sorted by arrival, deterministic for a seed."""
    rng = np.random.default_rng(seed)
    prefixes = _tenant_prefixes(rng, spec)
    tenant_weights = rng.dirichlet(np.full(spec.num_tenants, 2.0))
    starts = session_starts(rng, spec)
    cols: dict[str, list] = {k: [] for k in ("t", "inp", "out", "counts", "ids", "session", "turn", "tenant")}
    id_base = 1 << 40  # session blocks live above the shared ones
    for s, t0 in enumerate(starts):
        tenant = int(rng.choice(spec.num_tenants, p=tenant_weights))
        prefix = prefixes[tenant][int(rng.integers(spec.num_fewshot_variants))]
        _session_turns(rng, spec, cols, s, float(t0), tenant, prefix, id_base + s * (1 << 20))
    return build_trace(
        arrival_s=np.asarray(cols["t"], np.float64),
        block_counts=np.asarray(cols["counts"], np.int64),
        raw_block_ids=np.concatenate(cols["ids"]) if cols["ids"] else np.zeros(0, np.int64),
        input_tokens=np.asarray(cols["inp"], np.int64),
        output_tokens=np.asarray(cols["out"], np.int64),
        block_tokens=spec.block_tokens,
        source=f"workload(seed={seed})",
        session_ids=np.asarray(cols["session"], np.int64),
        turns=np.asarray(cols["turn"], np.int32),
        tenant_ids=np.asarray(cols["tenant"], np.int32),
    )


def _session_turns(rng, spec, cols, session, t, tenant, prefix, id0) -> None:
    """Append one session's turns: history grows by message + answer each turn."""
    bt = spec.block_tokens
    num_turns = int(rng.geometric(1.0 / spec.mean_turns))
    history = 0  # tokens of conversation after the shared prefix
    for turn in range(num_turns):
        if t >= spec.duration_s:
            break
        mean_message = spec.mean_message_tokens
        if turn == 0 and spec.burst is not None and spec.burst[0] <= t < spec.burst[1]:
            mean_message = spec.burst_document_tokens
        message = max(8, int(rng.lognormal(np.log(mean_message), 0.6)))
        answer = max(4, int(rng.lognormal(np.log(spec.mean_answer_tokens), 0.7)))
        body = history + message
        full = body // bt
        own = id0 + np.arange(full, dtype=np.int64)
        partial = [id0 + (1 << 19) + turn] if body % bt else []  # fresh id: this content is never reused
        ids = np.concatenate([prefix, own, np.asarray(partial, np.int64)])
        cols["t"].append(t)
        cols["inp"].append(len(prefix) * bt + body)
        cols["out"].append(answer)
        cols["counts"].append(ids.size)
        cols["ids"].append(ids)
        cols["session"].append(session)
        cols["turn"].append(turn)
        cols["tenant"].append(tenant)
        history = body + answer
        t += float(rng.exponential(spec.mean_think_s)) + 2.0
