"""serve-sim: the simulated cluster served live, pod i on port P+i and the EPP on P+N."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from dashboard.ingest.sim_server import serve
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
    if speed <= 0:
        raise ValueError(f"--speed must be positive, got {speed}")
    cluster = SimCluster(live_story(seed, hours, num_pods, restarts, dialect), time.time(), speed, [])
    for pod in [*range(num_pods), None]:
        target = port + (num_pods if pod is None else pod)
        cluster.servers.append(serve(host, target, _renderer(cluster, pod)))
    return cluster


def prometheus_config(num_pods: int, port: int, host: str = "127.0.0.1", scrape_interval: str = "15s") -> str:
    """A Prometheus config scraping every simulated pod and the EPP, each with a `pod` label."""
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
    """Write prometheus_config(...) to path."""
    path.write_text(prometheus_config(num_pods, port, host, scrape_interval))
