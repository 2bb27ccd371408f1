"""serve-sim: the simulated cluster served live, pod i on port P+i and the EPP on P+N."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from dashboard.core.windows import promql_duration
from dashboard.ingest.sim_server import serve
from dashboard.services.collector import parse_positive_duration
from dashboard.sim.dialects import DEFAULT_DIALECT, Dialect
from dashboard.sim.exporter import Series, epp_series, pod_series
from dashboard.sim.exposition import render
from dashboard.sim.scenario import Story, live_story


@dataclass
class SimCluster:
    """A running serve-sim: its story, clock and servers."""

    story: Story
    started_at: float
    speed: float
    servers: list

    def sim_time_s(self) -> float:
        """Simulated seconds since start (frozen at the end of the precomputed horizon)."""
        horizon = float(self.story.trace.arrival_s[-1]) if self.story.trace.num_requests else 0.0
        return min((time.time() - self.started_at) * self.speed, horizon)

    def stop(self) -> None:
        """Shut every server down."""
        for server in self.servers:
            server.shutdown()


def without_pod_label(series: list[Series]) -> list[Series]:
    """The series as the process itself exposes them: `pod` is a target label Prometheus adds."""
    return [replace(s, labels={k: v for k, v in s.labels.items() if k != "pod"}) for s in series]


def _renderer(cluster: SimCluster, pod: int | None) -> Callable[[], str]:
    def render_now() -> str:
        st = cluster.story
        at = np.array([cluster.sim_time_s()])
        if pod is None:
            series = epp_series(st.trace, st.outcome, st.spec, at)
        else:
            series = pod_series(st.trace, st.outcome, st.config, st.spec, pod, at)
        # NOTE: a real vLLM/EPP page has no `pod` label; exposing one would make Prometheus
        # rename it to exported_pod next to the target's own `pod`.
        return render(without_pod_label(series))

    return render_now


MAX_PORT = 65_535
MAX_HOURS = 48.0


def check_options(
    num_pods: int, port: int, speed: float, hours: float, restarts: tuple[tuple[float, int], ...] = ()
) -> None:
    """ValueError naming the flag of the first option serve-sim cannot run with (before any work)."""
    if num_pods < 1:
        raise ValueError(f"--pods must be at least 1, got {num_pods}")
    if not 1 <= port <= MAX_PORT - num_pods:
        raise ValueError(
            f"--port {port}: {num_pods} pods and the EPP need ports {port}..{port + num_pods}, "
            f"and ports run from 1 to {MAX_PORT}"
        )
    if not (math.isfinite(speed) and speed > 0):
        raise ValueError(f"--speed must be a positive number, got {speed}")
    if not (math.isfinite(hours) and 0 < hours <= MAX_HOURS):
        raise ValueError(f"--hours must be above 0 and at most {MAX_HOURS:g}, got {hours}")
    for seconds, pod in restarts:
        if not 0 <= pod < num_pods:
            raise ValueError(f"--restart {pod}@{seconds:g}: pod must be from 0 to {num_pods - 1}")
        if not (math.isfinite(seconds) and 0 <= seconds <= hours * 3600):
            raise ValueError(f"--restart {pod}@{seconds:g}: seconds must be within the {hours:g} h horizon")


def scrape_interval_text(text: str) -> str:
    """A --scrape-interval as the Prometheus duration it means (`15s`, `1m`, `500ms`); ValueError if none."""
    try:
        seconds = parse_positive_duration(text, "--scrape-interval")
    except ValueError:
        raise ValueError(
            f"--scrape-interval {text!r}: expected a positive duration, e.g. 15s or 1m"
        ) from None
    if seconds < 0.001:
        raise ValueError(f"--scrape-interval {text!r}: must be at least 1ms")
    return promql_duration(seconds)


def start(
    num_pods: int,
    port: int,
    speed: float,
    seed: int,
    hours: float,
    restarts: tuple[tuple[float, int], ...] = (),
    host: str = "127.0.0.1",
    dialect: Dialect = DEFAULT_DIALECT,
) -> SimCluster:
    """Simulate the whole horizon once, then serve it as time passes."""
    check_options(num_pods, port, speed, hours, restarts)
    cluster = SimCluster(live_story(seed, hours, num_pods, restarts, dialect), time.time(), speed, [])
    try:
        for pod in [*range(num_pods), None]:
            target = port + (num_pods if pod is None else pod)
            cluster.servers.append(serve(host, target, _renderer(cluster, pod)))
    except BaseException:
        cluster.stop()  # NOTE: a taken port must not leave the servers already started running
        raise
    return cluster


def prometheus_config(num_pods: int, port: int, host: str = "127.0.0.1", scrape_interval: str = "15s") -> str:
    """A Prometheus config scraping every simulated pod and the EPP, each with a `pod` label."""
    scrape_interval = scrape_interval_text(scrape_interval)
    lines = [
        "global:",
        f"  scrape_interval: {scrape_interval}",
        f"  evaluation_interval: {scrape_interval}",
        "scrape_configs:",
        "  - job_name: vllm",
        "    static_configs:",
    ]
    for i in range(num_pods):
        lines += [f"      - targets: ['{host}:{port + i}']", f"        labels: {{pod: 'vllm-{i}'}}"]
    lines += [
        "  - job_name: epp",
        "    static_configs:",
        f"      - targets: ['{host}:{port + num_pods}']",
        "        labels: {pod: 'epp-0'}",
    ]
    return "\n".join(lines) + "\n"


def write_prometheus_config(path: Path, num_pods: int, port: int, host: str, scrape_interval: str) -> None:
    """Write prometheus_config(...) to path (a folder or a missing parent folder is a ValueError)."""
    text = prometheus_config(num_pods, port, host, scrape_interval)
    if path.is_dir():
        raise ValueError(f"--prometheus-config {path}: is a directory; give a file path")
    if not path.parent.is_dir():
        raise ValueError(f"--prometheus-config {path}: folder {path.parent} does not exist")
    path.write_text(text)
