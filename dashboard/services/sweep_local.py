"""The local sweep executor: a pool of processes on this machine, each handed the trace once."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager

from dashboard.core.types import Trace
from dashboard.engine.summary import ReplaySummary
from dashboard.services.replay import ReplayRequest, run_replay
from dashboard.services.sweep_executors import ExecutorOptions, Runner

DEFAULT_WORKERS = 2

_WORKER_TRACE: list[Trace] = []


def _init_worker(trace: Trace) -> None:
    _WORKER_TRACE[:] = [trace]


def worker_trace() -> Trace:
    """The trace a pool worker was handed when it started."""
    return _WORKER_TRACE[0]


def trace_pool(trace: Trace, num_workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers each receive the trace once, when they start."""
    methods = multiprocessing.get_all_start_methods()
    # NOTE: fork shares the parent's loaded modules and numba cache; spawn is the portable fallback.
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    return ProcessPoolExecutor(num_workers, mp_context=context, initializer=_init_worker, initargs=(trace,))


def _run_one(index: int, req: ReplayRequest) -> tuple[int, ReplaySummary]:
    return index, run_replay(_WORKER_TRACE[0], req)


@contextmanager
def open_runner(trace: Trace, options: ExecutorOptions) -> Iterator[Runner]:
    """A Runner over `--workers` local processes (one process: in this one, no pool)."""
    if options.address is not None:
        raise ValueError("--address is for --executor ray; the local executor runs on this machine")
    num_workers = options.num_workers or DEFAULT_WORKERS

    def run(requests: Sequence[ReplayRequest]) -> Iterator[tuple[int, ReplaySummary]]:
        if num_workers == 1 or len(requests) == 1:
            for i, req in enumerate(requests):
                yield i, run_replay(trace, req)
            return
        with trace_pool(trace, num_workers) as pool:
            futures = [pool.submit(_run_one, i, req) for i, req in enumerate(requests)]
            for future in as_completed(futures):
                yield future.result()

    yield Runner(run, f"{num_workers} local worker{'s' if num_workers > 1 else ''}")
