"""Issue 16 item 2 ("Scale"): a 100M-block-access chat trace read and replayed on one machine.

The trace is the sample's chat workload at scale (dashboard/sim/scale_trace.py: 16-token blocks,
multi-turn sessions, shared system prompts), written once as Mooncake JSONL under
~/.cache/kvscope/bench (never in the repo). Each replay runs in a child process, the path users
run (read_trace, then services.replay.run_replay), which prints its split and its peak RSS (VmHWM):
`python -m bench.bench_replay scale [ROUTER | read-only]`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from statistics import median

import numpy as np

from bench.read_floor import read_floor
from bench.run import ROOT, Result, peak_rss_kib, timed_median
from dashboard.engine.mrc import default_capacities, lru_mrc
from dashboard.engine.readers import read_trace, scan
from dashboard.engine.readers.intern import dense_ids
from dashboard.engine.readers.mooncake import FIELDS, KINDS, read_mooncake, record_values
from dashboard.engine.replay import replay_single_cache
from dashboard.services.replay import ReplayRequest, run_replay
from dashboard.sim.scale_trace import (
    SCALE_BLOCK_TOKENS,
    generate_scale_columns,
    scale_trace_file,
    write_mooncake_jsonl,
)

NUM_ACCESSES, SEED = 100_000_000, 0
# NOTE: 8,192 HBM blocks (128k tokens) per pod keep the sessions' working set from fitting in HBM,
# so the CPU tier (65,536 blocks, 8x) serves a tenth of the hits; with the H100 + Llama-3.1-8B
# profile's 26,702 blocks it serves almost none on this workload.
REQUEST = ReplayRequest(num_pods=8, router="prefix", hbm_blocks=8_192, cpu_blocks=65_536)
CHILD = [sys.executable, "-m", "bench.bench_replay", "scale"]
COMMAND = "python -m bench.bench_replay scale prefix"
SCALE_SAMPLED_COMMAND = (
    "kvscope mrc chat-scale-s0-100000000-v1.jsonl --block-tokens 16 --policy {policy} --approx --json"
)
SCALE_FIFO_COMMAND = "kvscope mrc chat-scale-s0-100000000-v1.jsonl --block-tokens 16 --policy fifo --json"
TWIN_LINES = 5_000  # the json path's baseline reads this many lines of the scale file (~2 s)


def child(arg: str) -> None:
    """Read the scale trace and (unless arg is 'read-only') replay it under router arg; print JSON."""
    _warm()
    path = scale_trace_file(SEED, NUM_ACCESSES)
    started = time.perf_counter()
    trace = read_trace(path, "mooncake", block_tokens=SCALE_BLOCK_TOKENS)
    read_s = time.perf_counter() - started
    figures = {"read_s": read_s, "requests": trace.num_requests, "accesses": trace.num_block_accesses}
    figures["blocks"] = trace.num_blocks
    if arg != "read-only":
        started = time.perf_counter()
        summary = run_replay(trace, replace(REQUEST, router=arg))
        total_s = time.perf_counter() - started
        figures |= {
            "replay_s": summary.elapsed_s,
            "summary_s": total_s - summary.elapsed_s,
            "block_hit_ratio": summary.block_hit_ratio,
            "gpu_block_hits": summary.tiers["gpu"]["block_hits"],
            "cpu_block_hits": summary.tiers["cpu"]["block_hits"],
        }
    figures["maxrss_kib"] = peak_rss_kib()
    print(json.dumps(figures))


def _warm() -> None:
    """Load every kernel from numba's cache (or compile it) on a tiny trace: not part of the timings."""
    from dashboard.services.warmup import tiny_trace

    run_replay(tiny_trace(False), replace(REQUEST, hbm_blocks=2, cpu_blocks=2))
    run_replay(tiny_trace(False), replace(REQUEST, router="round_robin", hbm_blocks=2, cpu_blocks=2))


def _run_child(arg: str) -> dict:
    done = subprocess.run([*CHILD, arg], capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise RuntimeError(f"bench.bench_replay scale {arg} exited {done.returncode}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def _split(f: dict) -> str:
    return (
        f"read {f['read_s']:.2f} s + replay {f['replay_s']:.2f} s + summary {f['summary_s']:.2f} s, "
        f"peak RSS {f['maxrss_kib'] / 1024**2:.2f} GiB, block hit ratio {f['block_hit_ratio']:.4f} "
        f"({f['cpu_block_hits']:,} of {f['gpu_block_hits'] + f['cpu_block_hits']:,} hits from the CPU tier)"
    )


def bench_scale_replay() -> list[Result]:
    """Wall time and peak RSS of read + replay + summary, prefix router vs the default round robin."""
    scale_trace_file(SEED, NUM_ACCESSES)  # NOTE: generated once (~15 s), outside every timing
    prefix, round_robin, read_only = _run_child("prefix"), _run_child("round_robin"), _run_child("read-only")
    total = prefix["read_s"] + prefix["replay_s"] + prefix["summary_s"]
    rr_total = round_robin["read_s"] + round_robin["replay_s"] + round_robin["summary_s"]
    rss_bytes = prefix["maxrss_kib"] * 1024
    shape = (
        f"{prefix['requests']:,} requests, {prefix['accesses']:,} block accesses, {prefix['blocks']:,} "
        f"distinct blocks (16-token); 8 pods × (HBM {REQUEST.hbm_blocks:,} + CPU {REQUEST.cpu_blocks:,} "
        "blocks), LRU"
    )
    return [
        Result(
            "read + replay + summary, 100M block accesses, 8 pods, prefix router, HBM + CPU",
            COMMAND,
            total,
            "s",
            "same, round_robin (the default router)",
            rr_total,
            "<= 20 s",
            total <= 20.0,
            f"{shape}. prefix: {_split(prefix)}. round_robin: {_split(round_robin)}. One run each in a child "
            "process (the machine is shared), kernels loaded from numba's cache first",
        ),
        Result(
            "peak RSS, 100M block accesses, 8 pods, prefix router, HBM + CPU",
            COMMAND,
            rss_bytes / 1024**3,
            "GiB",
            "the same process reading the trace only",
            read_only["maxrss_kib"] / 1024**2,
            "<= 4 GB",
            rss_bytes <= 4e9,
            f"peak RSS (VmHWM) of the child process; {shape}; 24 caches (16 pod tiers + 8 EPP views)",
        ),
    ]


def scale_trace():
    """The 100M-access scale trace, read (generated and written first if it is not there yet)."""
    return read_trace(scale_trace_file(SEED, NUM_ACCESSES), "mooncake", block_tokens=SCALE_BLOCK_TOKENS)


def bench_scale_mrc() -> Result:
    """The exact one-pass LRU curve of the 100M-access trace beside one LRU replay of it at 10% of its blocks."""
    trace = scale_trace()
    caps = default_capacities(trace.num_blocks)
    tenth = trace.num_blocks // 10
    curve_s = timed_median(lambda: lru_mrc(trace, caps), repeats=3)
    replay_s = timed_median(lambda: replay_single_cache(trace, tenth), repeats=3)
    return Result(
        f"exact one-pass LRU MRC ({caps.size} capacities), 100M-access scale trace",
        "kvscope mrc chat-scale-s0-100000000-v1.jsonl --block-tokens 16 --json",
        trace.num_block_accesses / curve_s,
        "accesses/s",
        f"one LRU kernel replay at {tenth:,} blocks",
        trace.num_block_accesses / replay_s,
        "",
        None,
        f"{trace.num_block_accesses:,} accesses, {trace.num_blocks:,} distinct blocks: the whole curve in "
        f"{curve_s:.2f} s, one replay {replay_s:.2f} s; medians of 3, trace read excluded",
    )


def bench_reader(conversation: Path) -> list[Result]:
    """The compiled Mooncake reader, requests/s, vs its json twin, on the scale file and the real trace."""
    from tests.readers.twin_jsonl import read_mooncake_twin  # NOTE: here, so the children never import tests

    path = scale_trace_file(SEED, NUM_ACCESSES)
    numbered = first_appearance_ids_file(SEED, NUM_ACCESSES)
    results = []
    for name, full, part, block_tokens, repeats in (
        ("100M-access scale trace", path, _head(path), SCALE_BLOCK_TOKENS, 3),
        (
            "100M-access scale trace, ids numbered as the published traces number them",
            numbered,
            _head(numbered),
            SCALE_BLOCK_TOKENS,
            3,
        ),
        ("Mooncake conversation trace", conversation, conversation, 512, 11),
    ):
        read_mooncake(part, block_tokens)  # warm: numba cache, page cache
        fast_s, trace = _timed_reads(lambda p=full, b=block_tokens: read_mooncake(p, b), repeats)
        twin_s, twin = _timed(lambda p=part, b=block_tokens: read_mooncake_twin(p, b))
        assert np.array_equal(read_mooncake(part, block_tokens).block_ids, twin.block_ids), name
        rate = trace.num_requests / fast_s
        size = full.stat().st_size
        baseline = "the json path (tests/readers/twin_jsonl.py)"
        results.append(
            Result(
                f"Mooncake JSONL reader (compiled scan), {name}",
                f"python -c \"from dashboard.engine.readers import read_trace; read_trace('{full.name}', 'mooncake')\"",
                rate,
                "requests/s",
                baseline + (f", first {TWIN_LINES:,} lines" if part != full else ""),
                twin.num_requests / twin_s,
                ">= 1M requests/s",
                rate >= 1e6,
                f"{trace.num_requests:,} requests, {trace.num_block_accesses / trace.num_requests:.0f} block ids "
                f"per request: {trace.num_block_accesses / fast_s / 1e6:.0f}M ids/s, {size / fast_s / 1e6:.0f} MB/s "
                f"of JSON into the canonical arrays (dense int32 ids); median of {repeats}; equal ids checked"
                + (
                    _threads_note(full) + _floor_note(full, trace.num_requests)
                    if size >= scan.PARALLEL_MIN_BYTES
                    else ""
                ),
            )
        )
        del trace
    return results


def _head(path: Path) -> Path:
    """The file's first TWIN_LINES lines, kept beside it: what the json path's baseline reads."""
    head = path.with_name(f"head-{TWIN_LINES}-{path.name}")
    if not head.is_file():
        with path.open("rb") as src:
            head.write_bytes(b"".join(src.readline() for _ in range(TWIN_LINES)))
    return head


def first_appearance_ids_file(seed: int, num_accesses: int) -> Path:
    """The scale trace of seed and size with each hash id replaced by its rank of first appearance,
    as the published Mooncake traces number theirs (the generator's ids are per prompt and session
    instead), kept beside scale_trace_file's. Read, it is the same trace: readers number ids by
    first appearance anyway."""
    path = scale_trace_file(seed, num_accesses)
    numbered = path.with_name(f"first-appearance-ids-{path.name}")
    if not numbered.is_file():
        cols = generate_scale_columns(seed, num_accesses)
        write_mooncake_jsonl(numbered, replace(cols, hash_ids=dense_ids(cols.hash_ids)[0].astype(np.int64)))
    return numbered


def bench_bailian_reader(conversation: Path) -> Result:
    """The Bailian reader (the compiled scan) against its own json path, on the conversation trace
    written as Bailian JSONL (its sessions as inferred, once, under the bench cache)."""
    from dashboard.engine.readers import bailian
    from dashboard.engine.sessions import session_structure

    path = scale_trace_file(SEED, NUM_ACCESSES).with_name(f"bailian-{conversation.name}")
    if not path.is_file():
        trace = read_mooncake(conversation)
        parent, _, turns = session_structure(trace)
        lines = (
            json.dumps(
                {
                    "chat_id": i,
                    "parent_chat_id": int(parent[i]),
                    "timestamp": float(trace.arrival_s[i]),
                    "input_length": int(trace.input_tokens[i]),
                    "output_length": int(trace.output_tokens[i]),
                    "type": "text",
                    "turn": int(turns[i]) + 1,
                    "hash_ids": trace.block_ids[trace.offsets[i] : trace.offsets[i + 1]].tolist(),
                }
            )
            + "\n"
            for i in range(trace.num_requests)
        )
        path.write_text("".join(lines))
    bailian.read_bailian(path)  # warm: numba cache, page cache
    fast_s, trace = _timed_reads(lambda: bailian.read_bailian(path, 512), 11)
    json_s, slow = _timed(lambda: bailian._read_json(path, 512))
    assert np.array_equal(trace.session_ids, slow.session_ids) and np.array_equal(
        trace.block_ids, slow.block_ids
    )
    rate = trace.num_requests / fast_s
    return Result(
        "Bailian JSONL reader (compiled scan), Mooncake conversation trace as Bailian",
        f"python -c \"from dashboard.engine.readers import read_trace; read_trace('{path.name}', 'bailian')\"",
        rate,
        "requests/s",
        "its json path (bailian._read_json, what read the format before)",
        trace.num_requests / json_s,
        ">= 1M requests/s",
        rate >= 1e6,
        f"{trace.num_requests:,} requests with sessions, turns and types, {path.stat().st_size / 1e6:.1f} MB; "
        f"{fast_s * 1e3:.1f} ms, median of 11; the same sessions and ids checked",
    )


def _timed(fn) -> tuple[float, object]:
    started = time.perf_counter()
    out = fn()
    return time.perf_counter() - started, out


def _threads_note(path: Path, repeats: int = 5) -> str:
    """The scan on WORKERS threads against one, in alternating runs of the same process."""
    times: dict[int, list[float]] = {scan.WORKERS: [], 1: []}
    for _ in range(repeats):
        for workers, runs in times.items():
            runs.append(_timed(lambda w=workers: scan.scan_jsonl(path, FIELDS, KINDS, record_values, w))[0])
    many, one = median(times[scan.WORKERS]), median(times[1])
    return (
        f"; the scan in parts on {scan.WORKERS} threads {many:.2f} s against {one:.2f} s on one "
        f"({many / one:.2f}), medians of {repeats} alternating"
    )


def _floor_note(path: Path, num_requests: int) -> str:
    """What the machine allows any reader of path (bench/read_floor.py), in the reader's unit."""
    touch_s, parse_s, _ = read_floor(path, scan.WORKERS)
    return (
        f"; the machine's floor on {scan.WORKERS} threads, storing nothing: every byte read once "
        f"{touch_s:.2f} s ({num_requests / touch_s / 1e6:.2f}M requests/s), every integer parsed {parse_s:.2f} s, "
        f"so a reader that parses each id reads this file at {num_requests / parse_s / 1e6:.2f}M requests/s at most here"
    )


def _timed_reads(read, repeats: int) -> tuple[float, object]:
    """Median wall seconds of read(), and the last trace (one held at a time)."""
    times, trace = [], None
    for _ in range(repeats):
        trace = None
        took, trace = _timed(read)
        times.append(took)
    return median(times), trace
