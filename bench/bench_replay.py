"""Replay benchmarks (issue 3, items 9 and 10) on the Mooncake conversation trace.

Kernel and MRC throughput, the sampled (approximate) S3-FIFO curve against its exact sweep,
whole-process `kvscope replay` wall time, a 50-config sweep on two cores (local processes, and a
2-CPU Ray head on this machine), peak RSS on a synthetic 10M-block-access trace, and the
learned-policy space reduction; and (bench/scale.py) a 100M-block-access trace read and replayed
through 8 pods with a CPU tier, its peak RSS, and the compiled JSONL reader's requests/s.
`python -m bench.bench_replay rss` is the RSS child process (it prints its peak RSS, VmHWM, in KiB);
`python -m bench.bench_replay hindsight` prints the learned scoring's space reduction when fed
each request's true outcome (a diagnostic of how much the prediction limits it).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from pathlib import Path
from statistics import median

import numpy as np

from bench.run import (
    ROOT,
    Result,
    interleaved_medians,
    medians_note,
    paired_medians,
    peak_rss_kib,
    timed_median,
)
from bench.scale import (
    SCALE_FIFO_COMMAND,
    SCALE_SAMPLED_COMMAND,
    bench_bailian_reader,
    bench_reader,
    bench_scale_mrc,
    bench_scale_replay,
    scale_trace,
)
from bench.scale import child as scale_child
from dashboard.core.types import UNKNOWN, ClusterConfig, MissRatioCurve, RouterConfig, TierConfig, Trace
from dashboard.engine import mrc_fifo
from dashboard.engine.capacity import space_reduction_vs_lru
from dashboard.engine.mrc import curve_from_hits, default_capacities, lru_mrc, policy_mrc, replay_each
from dashboard.engine.mrc_sampled import DEFAULT_RATE, sampled_policy_mrc
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import LearnedOptions, replay_single_cache, simulate
from dashboard.engine.sessions import session_structure
from dashboard.engine.summary import summarize

TRACE_REL = "tests/data/traces/mooncake-fast25/conversation_trace.jsonl"  # in the repo: runs from a clone
TRACE = ROOT / TRACE_REL
# A second trace with prefix hashes, on which no default was chosen.
SYNTHETIC_REL = "tests/data/traces/mooncake-fast25/synthetic_trace.jsonl"
SYNTHETIC = ROOT / SYNTHETIC_REL
COMMAND = "python -m bench.run bench_replay"
REPLAY_CMD = f"kvscope replay {TRACE_REL} --format mooncake --policy lru --hbm-blocks 18279 --json"
SWEEP_GRID = (
    'name = "bench50"\npods = [1, 2, 4, 8, 16]\n'
    'router = ["round_robin", "random", "least_loaded", "prefix", "precise_prefix"]\n'
    "hbm_blocks = [2000, 18279]\n"
)
REFERENCE_CAPACITY = 18_279  # 10% of the conversation trace's unique blocks
RSS_ACCESSES = 10_000_000


def python_lru_hits(trace: Trace, capacity: int) -> int:
    """Pure-Python DESIGN.md LRU (OrderedDict) over the same stream: total prefix-hit blocks."""
    cache: OrderedDict[int, None] = OrderedDict()
    offsets, ids = trace.offsets.tolist(), trace.block_ids.tolist()
    total = 0
    for r in range(len(offsets) - 1):
        blocks = ids[offsets[r] : offsets[r + 1]]
        h = 0
        while h < len(blocks) and blocks[h] in cache:
            h += 1
        total += h
        for b in reversed(blocks):
            if b in cache:
                cache.move_to_end(b)
            else:
                cache[b] = None
                if len(cache) > capacity:
                    cache.popitem(last=False)
    return total


def bench_kernel(trace: Trace) -> Result:
    """Single-tier LRU replay kernel vs the pure-Python LRU, block accesses/s."""
    replay_single_cache(trace, REFERENCE_CAPACITY)
    kernel_s = timed_median(lambda: replay_single_cache(trace, REFERENCE_CAPACITY), repeats=21)
    python_s = timed_median(lambda: python_lru_hits(trace, REFERENCE_CAPACITY), repeats=3)
    assert int(replay_single_cache(trace, REFERENCE_CAPACITY).sum()) == python_lru_hits(
        trace, REFERENCE_CAPACITY
    )
    n = trace.num_block_accesses
    return Result(
        "LRU replay kernel, one cache of 18,279 blocks",
        COMMAND,
        n / kernel_s,
        "accesses/s",
        "pure-Python OrderedDict LRU",
        n / python_s,
        ">= 100M accesses/s",
        n / kernel_s >= 100e6,
        f"{n:,} accesses per replay; median of 21 kernel runs, 3 Python runs; equal hit counts checked",
    )


def bench_mrc(trace: Trace) -> Result:
    """Exact one-pass LRU MRC, block accesses/s, vs one kernel replay per point of the same grid."""
    caps = default_capacities(trace.num_blocks)
    lru_mrc(trace, caps)
    mrc_s = timed_median(lambda: lru_mrc(trace, caps), repeats=7)
    sweep_s = timed_median(lambda: [replay_single_cache(trace, int(c)) for c in caps], repeats=3)
    n = trace.num_block_accesses
    return Result(
        f"exact one-pass LRU MRC ({caps.size} capacities)",
        f"kvscope mrc {TRACE_REL} --json",
        n / mrc_s,
        "accesses/s",
        f"{caps.size} LRU kernel replays",
        n / sweep_s,
        ">= 10M accesses/s",
        n / mrc_s >= 10e6,
        "accesses/s = trace block accesses / wall time for the whole curve; median of 7",
    )


def bench_sampled_mrc(
    trace: Trace,
    policy: str = "s3fifo",
    where: str = "",
    command: str = "",
    repeats: tuple[int, int] = (5, 5),
) -> Result:
    """Sampled (miniature-simulation) curve of a non-LRU policy vs its exact sweep on the same grid;
    repeats: (sampled runs, exact runs), as paired_medians takes them; the error is the worst over
    seeds 0-2."""
    caps = default_capacities(trace.num_blocks)
    exact = policy_mrc(trace, policy, caps)
    sampled_s, exact_s = paired_medians(
        lambda: sampled_policy_mrc(trace, policy, caps), lambda: policy_mrc(trace, policy, caps), repeats
    )
    error = 0.0
    for seed in range(3):
        sampled = sampled_policy_mrc(trace, policy, caps, seed=seed)
        error = max(
            error,
            float(np.abs(sampled.curve.block_hit_ratio - exact.block_hit_ratio).max()),
            float(np.abs(sampled.curve.token_hit_ratio - exact.token_hit_ratio).max()),
        )
    speedup = exact_s / sampled_s
    return Result(
        f"sampled {policy} MRC ({caps.size} capacities, {DEFAULT_RATE:.0%} of prefix subtrees){where}",
        command or f"kvscope mrc {TRACE_REL} --policy {policy} --approx --json",
        sampled_s,
        "s",
        f"exact sweep, {caps.size} {policy} replays",
        exact_s,
        "≥ 10× faster, error ≤ 0.01",
        speedup >= 10.0 and error <= 0.01,
        f"{speedup:.1f}× faster; max abs error {error:.4f} (block and token hit ratio, every point, seeds "
        f"0-2), stated bound {sampled.label()}; {sampled.num_requests_sampled:,} of {trace.num_requests:,} "
        f"requests replayed (seed 2); {sampled.raised_capacities} capacities near the trunk at a raised "
        f"rate, {sampled.windowed_capacities} over windows of time; {medians_note(repeats, 'sampled', 'exact runs')}",
    )


def scale_sampled_rows(trace: Trace, policies: tuple[str, ...], exact_runs: int = 1) -> list[Result]:
    """bench_sampled_mrc of each policy on the 100M-access scale trace: 3 sampled runs, exact_runs
    exact sweeps (3: alternately with the sampled runs)."""
    return [
        bench_sampled_mrc(
            trace,
            policy,
            ", 100M-access scale trace",
            SCALE_SAMPLED_COMMAND.format(policy=policy),
            (3, exact_runs),
        )
        for policy in policies
    ]


def bench_scale_sampled_mrc() -> list[Result]:
    """The sampled curves on the 100M-access scale trace: S3-FIFO and ARC, whose capacities near the
    trunk the windows replay; and FIFO's exact curve in passes, which replaced its sampled one."""
    trace = scale_trace()
    return [
        *scale_sampled_rows(trace, ("s3fifo", "arc"), exact_runs=3),
        bench_fifo_passes(trace, ", 100M-access scale trace", SCALE_FIFO_COMMAND, repeats=3),
    ]


def same_curve(a: MissRatioCurve, b: MissRatioCurve) -> bool:
    """Whether two curves hold the same block and token hit ratios at every point, bit for bit."""
    return (
        a.block_hit_ratio.tolist() == b.block_hit_ratio.tolist()
        and a.token_hit_ratio.tolist() == b.token_hit_ratio.tolist()
    )


def bench_fifo_passes(trace: Trace, where: str = "", command: str = "", repeats: int = 5) -> Result:
    """FIFO's exact curve in passes over groups of capacities (mrc_fifo.py) against the sweep it
    replaced, one FIFO replay per capacity (both on a thread per core), timed alternately."""
    caps = default_capacities(trace.num_blocks)
    passes = policy_mrc(trace, "fifo", caps)
    swept = curve_from_hits(trace, caps, replay_each(trace, caps, "fifo"))
    same = same_curve(passes, swept)
    passes_s, sweep_s = interleaved_medians(
        lambda: policy_mrc(trace, "fifo", caps), lambda: replay_each(trace, caps, "fifo"), repeats
    )
    speedup = sweep_s / passes_s
    held = mrc_fifo.fifo_hits(trace, caps).held_blocks
    num_passes = -(-caps.size // mrc_fifo.LANES)
    table_mb = num_passes * (held + 1) * mrc_fifo.LANES * mrc_fifo.STAMP_BYTES / 1e6
    return Result(
        f"exact FIFO MRC in passes ({caps.size} capacities){where}",
        command or f"kvscope mrc {TRACE_REL} --policy fifo --json",
        passes_s,
        "s",
        f"exact sweep, {caps.size} fifo replays",
        sweep_s,
        "≥ 10× faster, error ≤ 0.01",
        speedup >= 10.0 and same,
        f"{speedup:.1f}× faster; "
        + (
            "the same hits as the sweep at every capacity (error 0)"
            if same
            else "hits DIFFER from the sweep's"
        )
        + f"; {num_passes} passes of {mrc_fifo.LANES} capacities, stamps for the {held:,} blocks held between "
        f"their first and last reads at once (of {trace.num_blocks:,}), {table_mb:,.1f} MB in all; "
        f"medians of {repeats}, alternating",
    )


def bench_lfu_exact(
    trace: Trace, where: str = "", command: str = "", repeats: tuple[int, int] = (5, 5)
) -> Result:
    """LFU's exact curve, a heap-free replay per capacity (policies/lfu.py), against the sweep it replaced:
    the same replays through the single-cache kernel's lazy heap (both on a thread per core).
    repeats: (curve runs, sweep runs), as paired_medians takes them."""
    from tests.engine.heap_lfu import heap_sweep  # NOTE: here, so the children never import tests

    caps = default_capacities(trace.num_blocks)
    curve = policy_mrc(trace, "lfu", caps)
    swept = curve_from_hits(trace, caps, heap_sweep(trace, caps))
    same = same_curve(curve, swept)
    curve_s, sweep_s = paired_medians(
        lambda: policy_mrc(trace, "lfu", caps), lambda: heap_sweep(trace, caps), repeats
    )
    speedup = sweep_s / curve_s
    return Result(
        f"exact LFU MRC, heap-free replays ({caps.size} capacities){where}",
        command or f"kvscope mrc {TRACE_REL} --policy lfu --json",
        curve_s,
        "s",
        f"exact sweep, {caps.size} lfu replays through the heap (how every LFU replay ran before)",
        sweep_s,
        "≥ 10× faster, error ≤ 0.01",
        speedup >= 10.0 and same,
        f"{speedup:.1f}× faster; "
        + (
            "the same hits as the heap's sweep at every capacity (error 0)"
            if same
            else "hits DIFFER from the heap's"
        )
        + f"; {medians_note(repeats, 'curves', 'sweeps' if repeats[1] > 1 else 'sweep')}",
    )


def bench_sweep() -> Result:
    """A 50-configuration sweep over the conversation trace: wall time on 2 workers vs 1."""
    with tempfile.TemporaryDirectory() as tmp:
        grid = Path(tmp) / "bench50.toml"
        grid.write_text(SWEEP_GRID)
        base = [
            sys.executable,
            "-m",
            "dashboard",
            "sweep",
            str(TRACE),
            "--grid",
            str(grid),
            "--no-save",
            "--json",
        ]
        subprocess.run([*base, "--workers", "2"], check=True, capture_output=True, cwd=ROOT)  # warm the cache
        two_s = _median_wall([*base, "--workers", "2"], 1)
        one_s = _median_wall([*base, "--workers", "1"], 1)
    return Result(
        "sweep, 50 configs, 2 workers",
        f"kvscope sweep {TRACE_REL} --grid bench50.toml --workers 2 --json",
        two_s,
        "s",
        "same sweep, 1 worker",
        one_s,
        "<= 10 s",
        two_s <= 10.0,
        "grid: pods 1/2/4/8/16 × round_robin/random/least_loaded/prefix/precise_prefix × HBM 2,000/18,279 "
        "(LRU); whole process wall time incl. trace read; one run each (the machine is shared)",
    )


def bench_sweep_ray() -> Result:
    """The same 50-config sweep on a 2-CPU Ray head on this machine, beside the local executor."""
    from tests.ray_head import ray_head  # NOTE: here, so the RSS child processes never import pytest

    with tempfile.TemporaryDirectory() as tmp, ray_head(num_cpus=2) as head:
        grid = Path(tmp) / "bench50.toml"
        grid.write_text(SWEEP_GRID)
        base = [sys.executable, "-m", "dashboard", "sweep", str(TRACE), "--grid", str(grid), "--no-save"]
        on_ray = [*base, "--json", "--executor", "ray", "--address", head.address]
        local = [*base, "--json", "--workers", "2"]
        # NOTE: one warm-up each (numba cache, page cache); their outputs must agree figure for figure.
        same = _figures(_stdout(on_ray, head.env)) == _figures(_stdout(local, head.env))
        pairs = [(_median_wall(on_ray, 1, head.env), _median_wall(local, 1, head.env)) for _ in range(3)]
    ray_s, local_s = median(p[0] for p in pairs), median(p[1] for p in pairs)
    return Result(
        "sweep, 50 configs, Ray executor (2-CPU head on this machine)",
        f"kvscope sweep {TRACE_REL} --grid bench50.toml --executor ray --address HEAD:PORT --json",
        ray_s,
        "s",
        "same sweep, local executor, 2 workers",
        local_s,
        "same figures as the local executor",
        same,
        "whole process wall time incl. trace read, joining the running head and Ray starting this job's "
        "worker processes (the head itself is started before and not timed); median of 3, alternating "
        "with the local run; figures compared config by config (all but elapsed_s)",
    )


def _stdout(cmd: list[str], env: dict[str, str]) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT, env=env).stdout


def _figures(out: str) -> list[dict]:
    """Every config's summary from `sweep --json`, without its engine wall time."""
    return [{k: v for k, v in c.items() if k != "elapsed_s"} for c in json.loads(out)["configs"]]


def synthetic_trace(num_accesses: int, seed: int = 0) -> Trace:
    """Chained-prefix requests over 20k documents of 64 blocks: each request reads a document's first k blocks."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 65, size=num_accesses // 32)
    counts[-1] += num_accesses - int(counts.sum())
    counts = counts[counts > 0]
    docs = rng.zipf(1.3, size=counts.size) % 20_000
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    within = np.arange(offsets[-1]) - np.repeat(offsets[:-1], counts)
    block_ids = (np.repeat(docs * 64, counts) + within).astype(np.int32)
    n = counts.size
    return Trace(
        arrival_s=np.arange(n) * 0.01,
        offsets=offsets,
        block_ids=block_ids,
        input_tokens=counts * 16,
        output_tokens=np.full(n, 64),
        block_tokens=16,
        num_blocks=20_000 * 64,
        session_ids=np.full(n, UNKNOWN, np.int64),
        turns=np.full(n, UNKNOWN, np.int32),
        type_codes=np.full(n, UNKNOWN, np.int16),
        source="synthetic",
    )


def rss_child(do_replay: bool) -> None:
    """Build the synthetic trace, optionally replay it (4 pods, HBM + CPU), print its peak RSS in KiB."""
    trace = synthetic_trace(RSS_ACCESSES)
    if do_replay:
        config = ClusterConfig(
            num_pods=4,
            tiers=(TierConfig("gpu", 50_000), TierConfig("cpu", 200_000)),
            router=RouterConfig("precise_prefix"),
        )
        summarize(trace, simulate(trace, config), config)
    print(peak_rss_kib())


def bench_rss() -> Result:
    """Peak RSS of a process replaying 10M block accesses, vs building the trace alone."""
    run = [sys.executable, "-m", "bench.bench_replay", "rss"]
    replay_kib = int(
        subprocess.run(run, check=True, capture_output=True, text=True, cwd=ROOT).stdout.split()[-1]
    )
    build_kib = int(
        subprocess.run(
            [*run, "build-only"], check=True, capture_output=True, text=True, cwd=ROOT
        ).stdout.split()[-1]
    )
    return Result(
        "peak RSS, replaying 10M block accesses",
        "python -m bench.bench_replay rss",
        replay_kib / 1024**2,
        "GiB",
        "trace built, not replayed",
        build_kib / 1024**2,
        "< 2 GB",
        replay_kib * 1024 < 2e9,
        "peak RSS (VmHWM) of a child process: synthetic 312k-request trace, 4 pods × (HBM 50k + CPU 200k blocks), "
        "precise_prefix router, summary computed",
    )


def bench_reduction(trace: Trace) -> list[Result]:
    """Item 10: capacity each policy needs for LRU's hit ratio at 18,279 blocks, as a reduction vs LRU."""
    ablation = "LearnedOptions(block_rules=False)"  # the options below, as the command writes them
    cases = [
        ("learned", "online", 0.18, None, "", reduction_command("learned")),
        (
            "learned",
            "online, block rules off",
            None,
            LearnedOptions(block_rules=False),
            ABLATION_NOTE,
            reduction_command("learned", ablation),
        ),
        ("s3fifo", "online", None, None, "", reduction_command("s3fifo")),
        ("arc", "online", None, None, "", reduction_command("arc")),
        ("oracle", "reference ceiling, reads the future", None, None, "", reduction_command("oracle")),
        (
            "learned",
            "scored from hindsight labels: a diagnostic that reads the future",
            None,
            LearnedOptions(probabilities=hindsight_probabilities(trace)),
            HINDSIGHT_NOTE,
            "python -m bench.bench_replay hindsight",
        ),
    ]
    return reduction_rows(trace, REFERENCE_CAPACITY, cases, "")


def bench_reduction_untuned() -> list[Result]:
    """The same figure on the Mooncake synthetic trace, on which no default was chosen: the issue
    asks the learned policy to hold two thirds of its 18% there."""
    trace = read_mooncake(SYNTHETIC)
    capacity = trace.num_blocks // 10
    cases = [
        (
            policy,
            label,
            target,
            None,
            "",
            reduction_command(policy, trace_rel=SYNTHETIC_REL, capacity=capacity),
        )
        for policy, label, target in (
            ("learned", "online", 0.12),
            ("s3fifo", "online", None),
            ("arc", "online", None),
            ("oracle", "reference ceiling, reads the future", None),
        )
    ]
    return reduction_rows(
        trace, capacity, cases, " on the synthetic trace (tuned on by nothing)", " (two thirds of 18%)"
    )


def reduction_rows(trace: Trace, capacity: int, cases: list, where: str, why: str = "") -> list[Result]:
    """One row per (policy, label, target fraction or None, options, note, command) case; why says
    where a target comes from."""
    results = []
    for policy, label, target, options, note, command in cases:
        started = time.perf_counter()
        r = space_reduction_vs_lru(trace, policy, capacity, options)
        took_s = time.perf_counter() - started
        value = float("nan") if r.reduction is None else 100.0 * r.reduction
        met = None if target is None else (r.reduction is not None and r.reduction >= target)
        results.append(
            Result(
                f"cache-space reduction vs LRU at equal hit ratio{where}: {policy} ({label})",
                command,
                value,
                "%",
                f"LRU at {capacity:,} blocks",
                0.0,
                "" if target is None else f">= {100 * target:g}%{why}",
                met,
                f"LRU hit ratio {r.lru_block_hit_ratio:.6f} at {r.lru_capacity_blocks:,} blocks; {policy} reaches "
                f"{r.policy_block_hit_ratio:.6f} at {_blocks(r.policy_capacity_blocks)} blocks (smallest on an upward "
                f"{r.search}; {r.num_replays} single-cache replays, {took_s:.1f} s)" + note,
            )
        )
    return results


def reduction_command(
    policy: str, options: str = "", trace_rel: str = TRACE_REL, capacity: int = REFERENCE_CAPACITY
) -> str:
    """The one-line command that prints policy's space_reduction_vs_lru result (options: Python source)."""
    imports = "; from dashboard.engine.replay import LearnedOptions" if options else ""
    args = f"'{policy}', {capacity}" + (f", {options}" if options else "")
    return (
        f'python -c "from dashboard.engine.capacity import space_reduction_vs_lru; from dashboard.engine.readers '
        f"import read_trace{imports}; print(space_reduction_vs_lru(read_trace('{trace_rel}'), {args}))\""
    )


HINDSIGHT_NOTE = (
    f"; p = 1 for a request whose session sends its next request within {LearnedOptions().horizon_s:g} s, else "
    "0.001, in the learned policy's own scoring: how far a perfect continuation predictor would take it"
)
ABLATION_NOTE = (
    "; the same online scores without the block rules (a partial last block, a superseded tail): "
    "what the rules add"
)


def hindsight_probabilities(trace: Trace, horizon_s: float = LearnedOptions().horizon_s) -> np.ndarray:
    """1 where the session's next request arrives within horizon_s, else 0.001 (reads the future)."""
    parent, _, _ = session_structure(trace)
    follows = parent >= 0
    next_arrival = np.full(trace.num_requests, np.inf)
    np.minimum.at(next_arrival, parent[follows], trace.arrival_s[follows])
    return np.where(next_arrival - trace.arrival_s <= horizon_s, 1.0, 0.001)


def _blocks(capacity: int | None) -> str:
    return "no capacity up to all unique" if capacity is None else f"{capacity:,}"


def _median_wall(cmd: list[str], repeats: int, env: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
        if done.returncode:
            raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr[-2000:]}")
        times.append(time.perf_counter() - started)
    return median(times)


def run() -> list[Result]:
    """Every replay benchmark; about 4 minutes on 2 shared cores."""
    trace = read_mooncake(TRACE)
    return [
        bench_kernel(trace),
        bench_mrc(trace),
        bench_sampled_mrc(trace),
        bench_fifo_passes(trace),
        bench_lfu_exact(trace),
        bench_sweep(),
        bench_sweep_ray(),
        bench_rss(),
        *bench_reduction(trace),
        *bench_reduction_untuned(),
        *bench_scale_replay(),
        bench_scale_mrc(),
        *bench_scale_sampled_mrc(),
        *bench_reader(TRACE),
        bench_bailian_reader(TRACE),
    ]


if __name__ == "__main__":
    if sys.argv[1:2] == ["rss"]:
        rss_child(do_replay=sys.argv[2:3] != ["build-only"])
    elif sys.argv[1:2] == ["scale"]:
        scale_child(sys.argv[2] if len(sys.argv) > 2 else "prefix")
    elif sys.argv[1:2] == ["hindsight"]:
        conversation = read_mooncake(TRACE)
        options = LearnedOptions(probabilities=hindsight_probabilities(conversation))
        print(space_reduction_vs_lru(conversation, "learned", REFERENCE_CAPACITY, options))
