"""Sweeps: the cartesian product of a grid of replay parameters, run by an executor.

A grid file (TOML or JSON) maps parameter names to a value or a list of values; every
combination is one replay. Executors (sweep_executors.EXECUTORS) run them in local processes or
on a Ray cluster; each hands the trace to a worker once, not once per configuration.
"""

from __future__ import annotations

import itertools
import json
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path

from dashboard.core import profiles
from dashboard.core.types import Trace
from dashboard.engine.policies import policy_info
from dashboard.engine.routers import router_info
from dashboard.engine.summary import ReplaySummary
from dashboard.services.replay import ReplayRequest, cluster_config
from dashboard.services.saved_replays import save_replay
from dashboard.services.sweep_executors import ExecutorOptions, open_runner
from dashboard.store.db import Store

# grid key -> ReplayRequest field; a grid may also carry `name` (the sweep's name).
GRID_KEYS = {
    "pods": "num_pods",
    "num_pods": "num_pods",
    "router": "router",
    "policy": "policy",
    "hbm_blocks": "hbm_blocks",
    "cpu_blocks": "cpu_blocks",
    "disk_blocks": "disk_blocks",
    "hardware": "hardware",
    "model": "model",
    "seed": "seed",
}
_INT_FIELDS = {f.name for f in fields(ReplayRequest) if f.type in ("int", "int | None")}


@dataclass(frozen=True)
class SweepGrid:
    """A parsed grid file: the sweep's name and one ReplayRequest per combination."""

    name: str
    requests: tuple[ReplayRequest, ...]


def read_grid(path: str | Path) -> SweepGrid:
    """Parse a TOML or JSON grid file into its configurations (ValueError naming the file and key)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such grid file")
    try:
        raw = json.loads(path.read_text()) if path.suffix == ".json" else tomllib.loads(path.read_text())
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(
            f"{path}: not a valid {'JSON' if path.suffix == '.json' else 'TOML'} grid: {exc}"
        ) from None
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: a grid is a table of parameter = [values]")
    name = str(raw.pop("name", path.stem))
    requests = tuple(grid_requests(raw, str(path)))
    check_grid_values(raw, str(path))
    return SweepGrid(name, requests)


_VALUE_CHECKS = {
    "policy": policy_info,
    "router": router_info,
    "hardware": profiles.hardware,
    "model": profiles.model,
}
_MINIMUM = {"num_pods": 1, "hbm_blocks": 0, "cpu_blocks": 0, "disk_blocks": 0}


def check_grid_values(grid: dict, where: str = "grid") -> None:
    """ValueError naming the file and key of the first value no replay accepts (before any work)."""
    for key, values in grid.items():
        field_name = GRID_KEYS[key]
        for v in values if isinstance(values, list) else [values]:
            try:
                if field_name in _VALUE_CHECKS:
                    _VALUE_CHECKS[field_name](v)
                elif field_name in _MINIMUM and v < _MINIMUM[field_name]:
                    raise ValueError(f"{v} is below {_MINIMUM[field_name]}")
            except ValueError as exc:
                raise ValueError(f"{where}: grid key {key!r}: {exc}") from None


def grid_requests(grid: dict, where: str = "grid") -> list[ReplayRequest]:
    """Every combination of the grid's value lists, as ReplayRequests, in file order."""
    unknown = sorted(set(grid) - set(GRID_KEYS))
    if unknown:
        raise ValueError(
            f"{where}: unknown grid key(s) {', '.join(unknown)}; known: {', '.join(GRID_KEYS)}, name"
        )
    axes = []
    for key, values in grid.items():
        values = values if isinstance(values, list) else [values]
        if not values:
            raise ValueError(f"{where}: grid key {key!r} has an empty list")
        field_name = GRID_KEYS[key]
        for v in values:
            if field_name in _INT_FIELDS and (not isinstance(v, int) or isinstance(v, bool)):
                raise ValueError(f"{where}: grid key {key!r}: {v!r} is not a whole number")
            if field_name not in _INT_FIELDS and not isinstance(v, str):
                raise ValueError(f"{where}: grid key {key!r}: {v!r} is not a name")
        axes.append([(field_name, v) for v in values])
    return [replace(ReplayRequest(), **dict(combo)) for combo in itertools.product(*axes)]


def check_requests(
    requests: tuple[ReplayRequest, ...] | list[ReplayRequest], block_tokens: int, where: str = ""
) -> None:
    """Fail before any work if a configuration is invalid (unknown router/policy, no HBM size, …);
    the message names where (the grid file) and the configuration by its grid keys."""
    prefix = f"{where}: " if where else ""
    for i, req in enumerate(requests):
        try:
            policy_info(req.policy)
            cluster_config(req, block_tokens)
        except ValueError as exc:
            raise ValueError(f"{prefix}config {i} ({describe_request(req)}): {exc}") from None


def describe_request(req: ReplayRequest) -> str:
    """A configuration as `key=value` grid keys, only where it differs from the defaults."""
    keys = {v: k for k, v in reversed(GRID_KEYS.items())}  # NOTE: field → first grid key naming it
    default = ReplayRequest()
    changed = [
        f"{keys[f.name]}={getattr(req, f.name)!r}"
        for f in fields(ReplayRequest)
        if getattr(req, f.name) != getattr(default, f.name)
    ]
    return ", ".join(changed) or "defaults"


def iter_sweep(
    trace: Trace,
    requests: tuple[ReplayRequest, ...] | list[ReplayRequest],
    num_workers: int | None = 2,
    executor: str = "local",
    address: str | None = None,
) -> Iterator[tuple[int, ReplaySummary]]:
    """Run every request on executor, yielding (index, summary) as each finishes (order of completion)."""
    check_requests(requests, trace.block_tokens)
    with open_runner(executor, trace, ExecutorOptions(num_workers, address)) as runner:
        yield from runner.run(requests)


def run_sweep(
    trace: Trace,
    requests: tuple[ReplayRequest, ...] | list[ReplayRequest],
    num_workers: int | None = 2,
    executor: str = "local",
    address: str | None = None,
) -> list[ReplaySummary]:
    """Summaries of every request, in request order."""
    results: dict[int, ReplaySummary] = dict(iter_sweep(trace, requests, num_workers, executor, address))
    return [results[i] for i in range(len(requests))]


def save_sweep(store: Store, sweep_name: str, trace_label: str, summaries: list[ReplaySummary]) -> list[int]:
    """Store each config's summary as run `<sweep_name>/<index>` of sweep sweep_name; returns run_ids."""
    return [
        save_replay(store, f"{sweep_name}/{i}", trace_label, s, sweep=sweep_name)
        for i, s in enumerate(summaries)
    ]
