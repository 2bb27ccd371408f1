"""Compile every numba kernel once, ahead of use, so no page or command waits on the compiler.

numba compiles a kernel on its first call and caches the machine code on disk (`cache=True`).
`make install` runs `kvscope warmup`, which calls each user-facing path once on a tiny trace of
the real dtypes (a kernel is compiled per argument types) and leaves a marker; the What-if and
Planner pages run the same steps, with progress shown, when the marker is missing. The marker is
keyed on the engine's sources, like numba's own cache, so an edited kernel is compiled again.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import dashboard
from dashboard.core.types import Trace

PACKAGE = Path(dashboard.__file__).parent
_ANSWER = (
    b'{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up"},'
    b'"values":[[1700000000,"1"],[1700000015,"0.5"]]}]}}'
)


def tiny_trace(with_sessions: bool) -> Trace:
    """Six requests of two sessions sharing a system prompt, in the readers' canonical dtypes."""
    from dashboard.engine.readers.canonical import build_trace

    paths = [[0, 1], [0, 1, 2], [0, 3], [0, 1, 2, 4], [0, 3, 5], [0, 1, 2, 4, 6]]
    counts = np.array([len(p) for p in paths], np.int64)
    return build_trace(
        arrival_s=np.arange(len(paths), dtype=np.float64),
        block_counts=counts,
        raw_block_ids=np.array([b for p in paths for b in p], np.int64),
        input_tokens=counts * 16,
        output_tokens=np.full(len(paths), 8),
        block_tokens=16,
        source="warmup",
        session_ids=np.array([0, 0, 1, 0, 1, 0]) if with_sessions else None,
    )


def _replays(trace: Trace) -> None:
    from dashboard.services.replay import ReplayRequest, run_replay

    for policy, router in (("lru", "prefix"), ("learned", "session_affinity"), ("oracle", "precise_prefix")):
        run_replay(trace, ReplayRequest(num_pods=2, router=router, policy=policy, hbm_blocks=2, cpu_blocks=2))


def _readers() -> None:
    from dashboard.engine.readers import mooncake, read_trace
    from dashboard.engine.readers.intern import dense_ids
    from dashboard.engine.readers.scan import scan_jsonl

    # NOTE: hashes (64-bit block keys) go past the direct table into the hash, which then grows
    dense_ids(np.arange(2048, dtype=np.int64) * 7919 + (1 << 40))

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "warmup.jsonl"

        def mooncake_lines(ids: str) -> str:
            return "".join(
                f'{{"timestamp": {i}, "input_length": 40, "output_length": 8, "hash_ids": [{ids.format(i + 1)}]}}\n'
                for i in range(3)
            )

        path.write_text(mooncake_lines("0, {}"))
        read_trace(path, "mooncake")
        # NOTE: and in parts on threads, as a file of several MB is read (scan.scan_raw), in chunks
        # of a line or two: ids dense by first appearance (int32 parts), then not (int64 parts)
        path.write_text(mooncake_lines("0, {}") + mooncake_lines("{}, 1000"))
        scan_jsonl(
            path, mooncake.FIELDS, mooncake.KINDS, mooncake.record_values, workers=2, parallel_min_bytes=0,
            chunk_bytes=160,
        )  # fmt: skip
        chats = (
            f'{{"chat_id": {i}, "parent_chat_id": {i - 1 if i else -1}, "timestamp": {i}.5, "input_length": 40, '
            f'"output_length": 8, "type": "text", "turn": {i + 1}, "hash_ids": [0, {i + 1}]}}'
            for i in range(3)
        )
        path.write_text("\n".join(chats) + "\n")
        read_trace(path, "bailian")  # NOTE: the compiled scan and its sessions (bailian.py)


def _planner(trace: Trace) -> None:
    from dashboard.engine.latency import latency_model
    from dashboard.engine.plan_math import HitOracle, service_seconds

    hits = HitOracle(trace).hit_tokens(4.0)
    lat = latency_model("h100-sxm", "llama-3.1-8b")
    service_seconds(lat, trace.input_tokens, hits, hits * 0)
    lat.ttft_s(1000)


def steps() -> list[tuple[str, Callable[[], None]]]:
    """(what is compiled, how) in the order `kvscope warmup` runs them."""
    # NOTE: imported here, not at the top, so `is_warm()` answers without loading numba (make run calls it).
    from dashboard.engine.mrc import lru_mrc, policy_mrc
    from dashboard.engine.mrc_sampled import sampling_units
    from dashboard.engine.policies import policy_names
    from dashboard.engine.policies.learned import LearnedOptions
    from dashboard.engine.replay import learned_inputs, replay_single_cache
    from dashboard.engine.sessions import session_structure
    from dashboard.engine.sub_traces import sub_trace
    from dashboard.engine.trace_stats import trace_stats
    from dashboard.ingest.matrix_answer import parse_matrix_answer

    trace, with_sessions = tiny_trace(False), tiny_trace(True)
    return [
        ("trace readers", _readers),
        ("sessions", lambda: (session_structure(trace), session_structure(with_sessions))),
        ("cluster replay: every policy, router and tier", lambda: _replays(trace)),
        (
            "single-cache replay: every policy",
            lambda: [replay_single_cache(trace, 2, p) for p in policy_names()],
        ),
        ("learned policy's scores and block rules", lambda: learned_inputs(trace, LearnedOptions())),
        (
            "miss-ratio curves",
            lambda: (
                lru_mrc(trace),
                policy_mrc(trace, "fifo"),
                sampling_units(trace),
                sub_trace(trace, np.arange(2)),
            ),
        ),
        ("capacity planner", lambda: _planner(trace)),
        ("trace statistics", lambda: trace_stats(trace)),
        ("Prometheus answer scanner", lambda: parse_matrix_answer(_ANSWER, "warmup")),
    ]


def sources_digest() -> str:
    """Digest of every kernel source's path, size and mtime (what numba's cache is keyed on)."""
    h = hashlib.sha1()
    for path in kernel_sources():
        st = path.stat()
        h.update(f"{path.relative_to(PACKAGE)}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


def marker_path() -> Path:
    """Where the marker of a finished warmup lives: beside numba's cache (NUMBA_CACHE_DIR or the package)."""
    root = (
        Path(os.environ["NUMBA_CACHE_DIR"]) if os.environ.get("NUMBA_CACHE_DIR") else PACKAGE / "__pycache__"
    )
    return root / f"kvscope-warm-{sources_digest()}"


def is_warm() -> bool:
    """Whether `warm_up` has run since the sources last changed."""
    return marker_path().exists()


def kernel_sources() -> list[Path]:
    """Every source file that holds a numba kernel or intrinsic (only these can go stale inside another's cache)."""
    files = [*(PACKAGE / "engine").rglob("*.py"), *(PACKAGE / "ingest").rglob("*.py")]
    return sorted(p for p in files if "@njit" in (text := p.read_text()) or "@intrinsic" in text)


def purge_stale_kernels() -> int:
    """Delete the package's cached kernels older than its newest kernel source; returns how many went.

    numba checks a cached kernel against its own file only: a kernel whose callee changed in
    another file (or was inlined from it) would load stale machine code and count wrong hits.
    """
    roots = [PACKAGE]
    if os.environ.get("NUMBA_CACHE_DIR"):
        # NOTE: numba then caches only there, naming a source folder's cache "<folder>_<hash of its path>".
        folders = {p.parent.name for p in PACKAGE.rglob("*.py")}
        base = Path(os.environ["NUMBA_CACHE_DIR"])
        roots = [d for d in base.glob("*_*") if d.is_dir() and d.name.rsplit("_", 1)[0] in folders]
    newest = max(p.stat().st_mtime for p in kernel_sources())
    cached = [f for root in roots for pattern in ("*.nbi", "*.nbc") for f in root.rglob(pattern)]
    stale = [f for f in cached if f.stat().st_mtime < newest]
    for f in stale:
        f.unlink(missing_ok=True)
    return len(stale)


def warm_up(progress: Callable[[int, int, str, float], None] = lambda *_: None) -> float:
    """Run every step (progress(index, count, name, seconds so far) before each); returns the seconds.

    Kernels cached before the sources last changed are deleted first (purge_stale_kernels).
    """
    started = time.perf_counter()
    if not is_warm():
        purge_stale_kernels()
    todo = steps()
    for i, (name, run) in enumerate(todo):
        progress(i, len(todo), name, time.perf_counter() - started)
        run()
    marker = marker_path()
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        for old in marker.parent.glob("kvscope-warm-*"):
            if old != marker:  # NOTE: not the current one: a command started meanwhile would warm up again
                old.unlink(missing_ok=True)
        marker.touch()
    except OSError:
        pass  # NOTE: a read-only install still ran warm; pages will simply warm up again
    return time.perf_counter() - started
