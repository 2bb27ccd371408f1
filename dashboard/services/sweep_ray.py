"""The Ray sweep executor: each configuration is one task on a Ray cluster (`--executor ray`).

The trace is put into Ray's object store once. A node fetches that object once, the first time
one of its workers needs it, and its worker processes read it from the node's shared store; each
worker process keeps one writable copy for all the configurations it runs. Workers run the
kvscope installed on their node, so every node needs the same kvscope (`pip install
'kvscope[ray]'`); a task refuses to replay when its engine's source differs from this driver's.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import socket
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import fields, replace
from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np

from dashboard import __version__
from dashboard.core.types import Trace
from dashboard.engine.summary import ReplaySummary
from dashboard.services.replay import ReplayRequest, run_replay
from dashboard.services.sweep_executors import ExecutorOptions, Runner

INSTALL_HINT = "install the ray extra: pip install 'kvscope[ray]'"
AUTH_HINT = "a head with token authentication also needs RAY_AUTH_MODE=token and its RAY_AUTH_TOKEN"
SAME_EVERYWHERE = "install the same kvscope on every node (pip install 'kvscope[ray]')"
CONNECT_TIMEOUT_S = 5.0
_ADDRESS = re.compile(r"^(?P<host>\[[^\]]+\]|[^:/\[\]]+):(?P<port>\d{1,5})$")
_PACKAGE = Path(__file__).resolve().parent.parent
_ENGINE_SOURCES = ("core", "engine", "services/replay.py")  # what a replay runs

_TRACES: dict[str, Trace] = {}  # in a worker process: object ref → its writable copy


@cache
def engine_fingerprint() -> str:
    """sha256 over the source of what a replay runs (core/, engine/, services/replay.py)."""
    digest = hashlib.sha256()
    for root in _ENGINE_SOURCES:
        path = _PACKAGE / root
        for source in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(source.relative_to(_PACKAGE).as_posix().encode() + b"\0")
            digest.update(source.read_bytes() + b"\0")
    return digest.hexdigest()


def _check_engine(fingerprint: str) -> None:
    """On a Ray worker: ValueError unless this node's replay source is the driver's."""
    if engine_fingerprint() != fingerprint:
        raise ValueError(
            f"Ray node {socket.gethostname()} runs another kvscope engine source than this driver "
            f"(kvscope {__version__} there; another install, or edited since the sweep started): {SAME_EVERYWHERE}"
        )


def _replay_task(
    boxed_trace: list, index: int, req: ReplayRequest, fingerprint: str
) -> tuple[int, ReplaySummary]:
    """One configuration, on a Ray worker. The trace ref comes boxed in a list so that Ray hands
    over the ref itself, not its value: the worker then copies the trace once, not once per task."""
    import ray

    _check_engine(fingerprint)
    ref = boxed_trace[0]
    if ref.hex() not in _TRACES:
        _TRACES.clear()
        _TRACES[ref.hex()] = _writable(ray.get(ref))
    return index, run_replay(_TRACES[ref.hex()], req)


def _writable(trace: Trace) -> Trace:
    """The trace with its arrays copied out of the object store, where they are read-only.

    NOTE: numba compiles a separate variant of every kernel for read-only arrays; a copy keeps the
    workers on the very kernels (and on-disk cache) the local executor uses.
    """
    values = {f.name: getattr(trace, f.name) for f in fields(trace)}
    return replace(trace, **{k: np.array(v) for k, v in values.items() if isinstance(v, np.ndarray)})


@contextmanager
def open_runner(trace: Trace, options: ExecutorOptions) -> Iterator[Runner]:
    """Join the cluster at options.address (None: ray.init()'s choice), put the trace, yield a Runner."""
    ray = _import_ray()
    joined = _join(ray, options.address)
    try:
        # NOTE: one worker checks its imports and engine now, so a node without kvscope (the
        # likeliest mistake) fails in one line before the progress bar; every task checks again.
        _get(ray, ray.remote(num_cpus=1)(_check_engine).remote(engine_fingerprint()))
        trace_ref = ray.put(trace)
        cpus = int(ray.cluster_resources().get("CPU", 0))
        where = f"Ray at {ray.get_runtime_context().gcs_address}"

        def run(requests: Sequence[ReplayRequest]) -> Iterator[tuple[int, ReplaySummary]]:
            return _results(ray, trace_ref, requests, options.num_workers)

        yield Runner(run, f"{where}, {cpus} CPUs")
    finally:
        if joined:
            ray.shutdown()


def _results(
    ray: ModuleType, trace_ref, requests: Sequence[ReplayRequest], max_in_flight: int | None
) -> Iterator[tuple[int, ReplaySummary]]:
    """Submit tasks (at most max_in_flight at a time; None: all) and yield each result as it lands."""
    task = ray.remote(num_cpus=1)(_replay_task)
    fingerprint = engine_fingerprint()
    waiting = list(enumerate(requests))[::-1]  # popped from the end: grid order
    in_flight: list = []
    limit = max_in_flight or len(requests)
    while waiting or in_flight:
        while waiting and len(in_flight) < limit:
            index, req = waiting.pop()
            in_flight.append(task.remote([trace_ref], index, req, fingerprint))
        done, in_flight = ray.wait(in_flight, num_returns=1)
        yield _get(ray, done[0])


def _get(ray: ModuleType, ref):
    """A task's result; a worker that cannot import kvscope or refuses its engine is one line."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayError as exc:
        # NOTE: a missing module surfaces as a RaySystemError while Ray unpickles the task's
        # arguments on the worker, not as an ImportError cause, so the message is what tells.
        missing = re.search(r"No module named '([^']+)'", str(exc))
        if missing:
            raise ValueError(f"a Ray worker cannot import {missing[1]}: {SAME_EVERYWHERE}") from None
        cause = getattr(exc, "cause", None)
        if isinstance(cause, ValueError):
            raise ValueError(_first_line(cause)) from None
        raise


def _import_ray() -> ModuleType:
    try:
        import ray
    except ImportError:
        raise ValueError(f"--executor ray: the ray package is not installed; {INSTALL_HINT}") from None
    return ray


def _join(ray: ModuleType, address: str | None) -> bool:
    """ray.init(address) unless this process already joined a cluster; whether we joined."""
    if ray.is_initialized():
        return False  # NOTE: a notebook's own ray.init() is used as it is and left open
    if address is not None:
        _check_answers(address)
    # NOTE: a local Ray that kvscope starts sends no usage statistics unless the user opted in.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        # NOTE: workers' prints would land on our stdout, which --json keeps for one object.
        ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
    except (ConnectionError, RuntimeError, TimeoutError, ValueError) as exc:
        where = f"--address {address}" if address else "--executor ray"
        # NOTE: Ray sends its token to an explicit address only when RAY_AUTH_MODE=token says so.
        hint = "" if os.environ.get("RAY_AUTH_MODE") else f" ({AUTH_HINT})"
        raise ValueError(f"{where}: cannot join a Ray cluster: {_first_line(exc)}{hint}") from None
    return True


def _check_answers(address: str) -> None:
    """ValueError unless something listens at HOST:PORT.

    NOTE: ray.init retries an address nobody answers at for minutes (20 tries of ~30 s each), so a
    typo or a stopped head would hang the command; one TCP connect tells us at once.
    """
    match = _ADDRESS.match(address)
    if match is None:
        raise ValueError(f"--address {address!r}: expected HOST:PORT, the head's port (6379 by default)")
    host, port = match["host"].strip("[]"), int(match["port"])
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        reason = (exc.strerror or str(exc) or type(exc).__name__).lower()
        raise ValueError(
            f"--address {address}: no Ray cluster answers there ({reason}); start one with "
            "`ray start --head`, or leave out --address for a local Ray"
        ) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc)
    return next((line.strip() for line in text.splitlines() if line.strip()), type(exc).__name__)
