"""Where a sweep's configurations run: the one registry of executors, each in its own module.

An executor module defines open_runner(trace, options), a context manager that connects (or
fails with one ValueError line) before any work and yields a Runner; the Runner's run(requests)
yields (index, summary) as each configuration finishes, in order of completion.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass

from dashboard.core.types import Trace
from dashboard.engine.summary import ReplaySummary
from dashboard.services.replay import ReplayRequest

# NOTE: name → module, imported on first use: only the chosen executor's module is loaded, and
# sweep_ray imports ray itself only once it runs (ray is an optional extra).
EXECUTORS: dict[str, str] = {
    "local": "dashboard.services.sweep_local",
    "ray": "dashboard.services.sweep_ray",
}


@dataclass(frozen=True)
class ExecutorOptions:
    """What the command line says about where to run: None leaves the executor's default."""

    num_workers: int | None = None  # local: processes (2); ray: tasks in flight (every cluster CPU)
    address: str | None = None  # ray only: the cluster to join (None: ray.init()'s own choice)


@dataclass(frozen=True)
class Runner:
    """An open executor: run(requests) yields (index, summary) as each finishes; where names it."""

    run: Callable[[Sequence[ReplayRequest]], Iterator[tuple[int, ReplaySummary]]]
    where: str


def open_runner(name: str, trace: Trace, options: ExecutorOptions) -> AbstractContextManager[Runner]:
    """Open executor `name` for trace (ValueError listing the known executors)."""
    if name not in EXECUTORS:
        raise ValueError(f"unknown sweep executor {name!r}; known: {', '.join(EXECUTORS)}")
    if options.num_workers is not None and options.num_workers < 1:
        raise ValueError(f"--workers must be at least 1, got {options.num_workers}")
    return importlib.import_module(EXECUTORS[name]).open_runner(trace, options)
