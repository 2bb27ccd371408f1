"""The replay path users run (issue 16, items 1 and 6), on the Mooncake conversation trace.

- `run_replay` end to end (routing, every tier, per-pod queueing and TTFT, the whole summary) for
  one LRU pod and for 8 pods with the prefix router and a CPU tier, beside the single-cache LRU
  kernel and a pure-Python LRU measured in the same run;
- the cold start a new user meets: `kvscope warmup` (what `make install` runs) from an empty
  numba cache, then the first `kvscope replay`; and a warm `kvscope replay` process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from statistics import median

from bench.bench_replay import REFERENCE_CAPACITY, REPLAY_CMD, TRACE, _median_wall, python_lru_hits
from bench.run import ROOT, Result, timed_median
from dashboard.engine.policies import state_pool
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.engine.replay import replay_single_cache
from dashboard.services.replay import ReplayRequest, run_replay

COMMAND = "python -m bench.run bench_replay_path"
EIGHT_PODS = ReplayRequest(
    num_pods=8, router="prefix", hbm_blocks=REFERENCE_CAPACITY // 8, cpu_blocks=REFERENCE_CAPACITY // 4
)
ONE_POD = ReplayRequest(hbm_blocks=REFERENCE_CAPACITY)
# NOTE: the first 20 replays in a process ran ~10% slower than the next 180 (8 pods: median 10.1
# ms against 9.0-10.3 ms for each later 20, most near 9.2); the page and sweeps replay many times,
# so the figure is the steady state.
WARM_RUNS = 10
STEADY_ROUNDS = 7  # NOTE: this shared machine's speed drifts by 10-50% within a minute: rounds, alternating


def steady_seconds(trace, req: ReplayRequest) -> float:
    """Median wall seconds of run_replay (41 runs after WARM_RUNS untimed) on the state it hands back."""
    for _ in range(WARM_RUNS):
        run_replay(trace, req)
    return timed_median(lambda: run_replay(trace, req), repeats=41)


def bench_user_path(trace, req: ReplayRequest, label: str, target: float, rounds: list[float]) -> Result:
    """run_replay's accesses/s (the median of steady_seconds rounds) beside a fresh state's, the kernel's and
    pure Python's."""
    n, path_s = trace.num_block_accesses, median(rounds)
    fresh_s = timed_median(lambda: (state_pool.clear(), run_replay(trace, req)), repeats=21)
    kernel_s = timed_median(lambda: replay_single_cache(trace, REFERENCE_CAPACITY), repeats=21)
    python_s = timed_median(lambda: python_lru_hits(trace, REFERENCE_CAPACITY), repeats=3)
    return Result(
        f"run_replay, {label}",
        f"{COMMAND}  (kvscope replay … {_flags(req)})",
        n / path_s,
        "accesses/s",
        "pure-Python OrderedDict LRU, one cache",
        n / python_s,
        f">= {target / 1e6:.0f}M accesses/s",
        n / path_s >= target,
        f"{n:,} accesses, {path_s * 1e3:.1f} ms per run_replay (the median of {len(rounds)} rounds, "
        f"{min(rounds) * 1e3:.1f}-{max(rounds) * 1e3:.1f} ms, each the median of 41 after {WARM_RUNS} untimed), "
        f"including routing, tiers, TTFT and the whole summary, on the cache state the last replay handed "
        f"back (as the What-if page and sweeps replay); on a new state each time (a single `kvscope replay`): {n / fresh_s / 1e6:.1f}M/s "
        f"({fresh_s * 1e3:.1f} ms); the single-cache LRU kernel alone: {n / kernel_s / 1e6:.0f}M/s "
        f"({kernel_s * 1e3:.2f} ms), same run",
    )


def _flags(req: ReplayRequest) -> str:
    flags = f"--pods {req.num_pods} --router {req.router} --hbm-blocks {req.hbm_blocks}"
    return flags + (f" --cpu-blocks {req.cpu_blocks}" if req.cpu_blocks else "")


def bench_cold_start() -> list[Result]:
    """`kvscope warmup` from an empty numba cache, then the first and warm `kvscope replay` processes."""
    replay = [sys.executable, "-m", "dashboard", "replay", str(TRACE), *REPLAY_CMD.split()[3:]]
    floor = [sys.executable, "-c", "import dashboard.cli"]
    with tempfile.TemporaryDirectory() as cache:
        env = os.environ | {"NUMBA_CACHE_DIR": cache}
        warmup_s = _wall([sys.executable, "-m", "dashboard", "warmup"], env)
        first_s = _wall(replay, env)
        warm_s = _median_wall(replay, 5, env)
        floor_s = _median_wall(floor, 5, env)
    return [
        Result(
            "first kvscope replay after an install (warmup ran at install)",
            f"NUMBA_CACHE_DIR=$(mktemp -d); kvscope warmup; {REPLAY_CMD}",
            first_s,
            "s",
            "kvscope warmup from an empty cache (the install step)",
            warmup_s,
            "<= 10 s",
            first_s <= 10,
            "an empty numba cache stands for a fresh clone: `make install` runs `kvscope warmup` (progress "
            "on stderr), so the first replay loads every kernel from disk; one run each",
        ),
        Result(
            "kvscope replay process, warm, LRU 18,279 blocks",
            REPLAY_CMD,
            warm_s,
            "s",
            "python -c 'import dashboard.cli'",
            floor_s,
            "<= 0.8 s",
            warm_s <= 0.8,
            "subprocess wall time, median of 5 after the first run; includes reading the JSONL trace",
        ),
    ]


def _wall(cmd: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT, env=env)
    return time.perf_counter() - started


def run() -> list[Result]:
    """Item 1's two paths and item 6's cold and warm starts; about a minute and a half."""
    trace = read_mooncake(TRACE)
    cases = [
        (ONE_POD, "1 LRU pod of 18,279 blocks", 50e6),
        (EIGHT_PODS, "8 pods, prefix router, CPU tier", 30e6),
    ]
    # NOTE: both steady-state figures first: a process that has just run the pure-Python LRU (or
    # dropped its pooled states) replays 5-10% slower for a while, which no user's process does.
    rounds = [[steady_seconds(trace, req) for req, _, _ in cases] for _ in range(STEADY_ROUNDS)]
    rows = [bench_user_path(trace, *case, [r[k] for r in rounds]) for k, case in enumerate(cases)]
    return [*rows, *bench_cold_start()]
