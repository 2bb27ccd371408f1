"""Real parts for the ingest tests: vLLM-named exporters over HTTP and a real Prometheus server."""

from __future__ import annotations

import json
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

from tests.shared_process import free_port

TTFT_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
    640.0,
    2560.0,
)


def prometheus_binary() -> str:
    path = shutil.which("prometheus")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("prometheus is missing in CI (.ci/run installs it: apt-get install prometheus)")
        pytest.skip("needs the Prometheus server: apt-get install prometheus")
    return path


@dataclass
class Exporter:
    """One fake vLLM pod: counters that grow with a drifting hit ratio, and a TTFT histogram."""

    pod: str
    seed: int
    port: int = field(default_factory=free_port)
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> None:
        registry = CollectorRegistry()
        labels = ["model_name", "engine"]
        self.hits = Counter("vllm:prefix_cache_hits", "hits", labels, registry=registry)
        self.queries = Counter("vllm:prefix_cache_queries", "queries", labels, registry=registry)
        self.ttft = Histogram(
            "vllm:time_to_first_token_seconds", "ttft", labels, buckets=TTFT_BUCKETS, registry=registry
        )
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), _handler(registry))
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        threading.Thread(target=self._drive, daemon=True).start()

    def _drive(self) -> None:
        rng = np.random.default_rng(self.seed)
        step = 0
        while not self._stop.is_set():
            step += 1
            prompt = int(rng.integers(500, 4000))
            ratio = 0.5 + 0.4 * np.sin(step / 40.0 + self.seed)
            self.queries.labels("m", "0").inc(prompt)
            self.hits.labels("m", "0").inc(int(prompt * ratio))
            self.ttft.labels("m", "0").observe(float(rng.lognormal(-2.5 + self.seed * 0.3, 0.8)))
            time.sleep(0.02)

    def stop(self) -> None:
        self._stop.set()
        self.server.shutdown()


def _handler(registry: CollectorRegistry) -> type[BaseHTTPRequestHandler]:
    """Serve the classic text format with vLLM's `vllm:` names unescaped, as vLLM does."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            body = generate_latest(registry)
            self.send_response(200)
            self.send_header("Content-Type", CONTENT_TYPE_LATEST)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            return

    return Handler


class TcpRelay:
    """A TCP relay on its own port in front of a server: `cut()` refuses new connections and drops
    the open ones (the server unreachable, as in a network outage), `restore()` serves again on
    the same port. The server behind it runs on throughout (Prometheus keeps scraping)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> TcpRelay:
        self.restore()
        return self

    def __exit__(self, *exc) -> None:
        self.cut()

    def restore(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port))  # NOTE: SO_REUSEADDR: the same port again
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            if listener is not None:
                # NOTE: close() alone leaves the accept() blocked in _accept accepting connections
                listener.shutdown(socket.SHUT_RDWR)
                listener.close()
            for conn in self._open:
                conn.close()
            self._open.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # NOTE: cut() closed the listener
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()  # NOTE: the server behind is down: the client sees it at once, not a hang
                continue
            with self._lock:
                if self._listener is not listener:  # NOTE: accepted just before a cut: dropped with it
                    client.close()
                    upstream.close()
                    return
                self._open |= {client, upstream}
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        """Copy one direction; when either side ends, end the pair (HTTP clients never half-close)."""
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        with self._lock:
            self._open -= {source, sink}
        source.close()
        sink.close()


SCRAPE_TIMES = "timestamp(up)"  # when each target's latest stored scrape began, by its pod label


def scraped_past(answer: dict, pods, end_s: float) -> bool:
    """True when a SCRAPE_TIMES answer shows, for every pod, a stored scrape that began after end_s.

    NOTE: a scrape's samples carry the time it began but are stored when it ends, one scrape of a
    target after another: past that point every sample of a pod up to end_s is stored. On a busy
    machine a scrape takes seconds, so "a second or two ago" is not enough: a pull then missed a
    sample the server's own query read a moment later.
    """
    latest = {r["metric"].get("pod"): float(r["value"][1]) for r in answer["data"]["result"]}
    return all(latest.get(pod, 0.0) > end_s for pod in pods)


@dataclass
class PrometheusServer:
    """The real Prometheus binary on 127.0.0.1 with a temp config and data dir."""

    targets: dict[str, int]
    data_dir: Path
    scrape_interval: str = "1s"
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None
    tls: tuple[Path, Path, Path] | None = None  # (server cert, server key, CA): serve HTTPS

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def write_config(self) -> Path:
        jobs = "\n".join(
            f"      - targets: ['127.0.0.1:{port}']\n        labels: {{pod: '{pod}'}}"
            for pod, port in self.targets.items()
        )
        config = self.data_dir / "prometheus.yml"
        config.write_text(
            f"global:\n  scrape_interval: {self.scrape_interval}\n  evaluation_interval: {self.scrape_interval}\n"
            f"scrape_configs:\n  - job_name: vllm\n    static_configs:\n{jobs}\n"
        )
        return config

    def start(self) -> None:
        config = self.write_config()
        web = []
        context = None
        if self.tls:
            web_config = self.data_dir / "web.yml"
            web_config.write_text(
                f"tls_server_config:\n  cert_file: {self.tls[0]}\n  key_file: {self.tls[1]}\n"
            )
            web = [f"--web.config.file={web_config}"]
            context = ssl.create_default_context(cafile=str(self.tls[2]))
        self.proc = subprocess.Popen(
            [
                prometheus_binary(),
                f"--config.file={config}",
                f"--storage.tsdb.path={self.data_dir / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                *web,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/-/ready", timeout=1, context=context) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise AssertionError("prometheus did not become ready in 30 s")

    def num_scrapes(self, window: str = "2m") -> int:
        """Fewest samples this server holds of any target's query counter over the last `window`."""
        qs = urllib.parse.urlencode({"query": f"count_over_time(vllm:prefix_cache_queries_total[{window}])"})
        try:
            context = ssl.create_default_context(cafile=str(self.tls[2])) if self.tls else None
            with urllib.request.urlopen(f"{self.url}/api/v1/query?{qs}", timeout=5, context=context) as resp:
                result = json.load(resp)["data"]["result"]
        except OSError:
            return 0
        if len(result) < len(self.targets):
            return 0
        return min(int(float(r["value"][1])) for r in result)

    def scraped_past(self, end_s: float) -> bool:
        """True once it has stored a scrape of every target that began after end_s (see scraped_past)."""
        qs = urllib.parse.urlencode({"query": SCRAPE_TIMES})
        context = ssl.create_default_context(cafile=str(self.tls[2])) if self.tls else None
        with urllib.request.urlopen(f"{self.url}/api/v1/query?{qs}", timeout=5, context=context) as resp:
            return scraped_past(json.load(resp), self.targets, end_s)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            self.proc = None
