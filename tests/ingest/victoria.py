"""Real VictoriaMetrics single-node for tests (Debian package `victoria-metrics`, 1.79 here):
scraping targets with its own -promscrape.config, or fed through its import API."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.ingest.live import SCRAPE_TIMES, free_port, scraped_past
from tests.polling import wait_until

BINARY = "victoria-metrics"
DEBIAN_PATH = Path("/usr/bin/victoria-metrics")


def victoria_binary() -> str:
    path = shutil.which(BINARY) or (str(DEBIAN_PATH) if DEBIAN_PATH.is_file() else None)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{BINARY} is missing in CI (.ci/run installs it: apt-get install victoria-metrics)")
        pytest.skip(f"needs VictoriaMetrics: apt-get install {BINARY}")
    return path


@dataclass
class VictoriaMetrics:
    """victoria-metrics on 127.0.0.1 with a temp data dir; scrapes `targets` (pod → port) if any."""

    data_dir: Path
    targets: dict[str, int] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    scrape_interval: str = "1s"
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def write_scrape_config(self) -> Path:
        """Its own -promscrape.config: one job, each target with its pod label.

        NOTE: not serve-sim's --prometheus-config file: VictoriaMetrics refuses Prometheus's
        `evaluation_interval` unless started with -promscrape.config.strictParse=false.
        """
        targets = "\n".join(
            f"      - targets: ['127.0.0.1:{port}']\n        labels: {{pod: '{pod}'}}"
            for pod, port in self.targets.items()
        )
        config = self.data_dir / "scrape.yml"
        config.write_text(
            f"global:\n  scrape_interval: {self.scrape_interval}\n"
            f"scrape_configs:\n  - job_name: kvscope-sim\n    static_configs:\n{targets}\n"
        )
        return config

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            victoria_binary(),
            f"-storageDataPath={self.data_dir / 'storage'}",
            f"-httpListenAddr=127.0.0.1:{self.port}",
            # NOTE: a scrape that overran its interval on a busy machine wrote stale markers, which
            # the export gives as null and OpenMetrics cannot carry to the Prometheus it is compared with.
            *(
                [f"-promscrape.config={self.write_scrape_config()}", "-promscrape.noStaleMarkers"]
                if self.targets
                else []
            ),
            *self.flags,
        ]
        self._log = (self.data_dir / "victoria.log").open("wb")
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT)
        wait_until(self._is_healthy, f"VictoriaMetrics on port {self.port} to answer /health", timeout_s=30)

    def _is_healthy(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            tail = (self.data_dir / "victoria.log").read_text(errors="replace")[-2000:]
            raise AssertionError(f"victoria-metrics exited with {self.proc.returncode}:\n{tail}")
        try:
            return self._get("/health") == b"OK"
        except OSError:
            return False

    def _get(self, path: str, **params: object) -> bytes:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        with urllib.request.urlopen(f"{self.url}{path}{query}", timeout=10) as resp:
            return resp.read()

    def num_scrapes(self, window: str = "2m") -> int:
        """Fewest samples it holds of any target's query counter over the last `window`."""
        query = f"count_over_time(vllm:prefix_cache_queries_total[{window}])"
        try:
            self.flush()
            # NOTE: nocache=1, or it answers as of 30 s ago (-search.latencyOffset)
            result = json.loads(self._get("/api/v1/query", query=query, nocache=1))["data"]["result"]
        except OSError:
            return 0
        pods = sum(1 for pod in self.targets if pod.startswith("vllm-"))
        return 0 if len(result) < pods else min(int(float(r["value"][1])) for r in result)

    def scraped_past(self, end_s: float) -> bool:
        """True once it has stored a scrape of every target that began after end_s (live.scraped_past)."""
        try:
            self.flush()
            answer = json.loads(self._get("/api/v1/query", query=SCRAPE_TIMES, nocache=1))
        except OSError:
            return False
        return scraped_past(answer, self.targets, end_s)

    def flush(self) -> None:
        """Make every sample it has received searchable now (it otherwise waits up to a second)."""
        self._get("/internal/force_flush")

    def import_series(self, series: list[dict]) -> None:
        """Write series given as its JSON-lines import format ({metric, values, timestamps})."""
        body = "".join(json.dumps(s) + "\n" for s in series).encode()
        request = urllib.request.Request(f"{self.url}/api/v1/import", data=body, method="POST")
        with urllib.request.urlopen(request, timeout=60) as resp:
            resp.read()
        self.flush()

    def export(self, start_s: float, end_s: float) -> list[dict]:
        """Every stored series with samples in [start, end], in the import format."""
        body = self._get("/api/v1/export", **{"match[]": '{__name__!=""}', "start": start_s, "end": end_s})
        return [json.loads(line) for line in body.splitlines() if line.strip()]

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            self.proc = None
            self._log.close()


def to_openmetrics(series: list[dict], start_ms: int, end_ms: int) -> str:
    """The samples of exported series in (start, end] as an OpenMetrics file for promtool.

    NOTE: promtool reads a timestamp as int64(seconds * 1000), truncating, and `….123` times 1000
    can land just under `…123`; writing half a millisecond more (`….1235`) reads back exactly.
    """
    lines = []
    for s in series:
        labels = dict(s["metric"])
        name = labels.pop("__name__")
        body = ",".join(f'{k}="{_escape(v)}"' for k, v in sorted(labels.items()))
        for t, v in zip(s["timestamps"], s["values"], strict=True):
            if start_ms < t <= end_ms:
                assert v is not None, f"{name}{{{body}}} at {t} ms: a stale marker (null) in the export"
                value = "NaN" if math.isnan(v) else repr(float(v))
                lines.append(
                    (f"{name}{{{body}}}", t, f"{name}{{{body}}} {value} {t // 1000}.{t % 1000:03d}5")
                )
    # NOTE: OpenMetrics wants each series' samples together and in time order.
    return "\n".join(line for _, _, line in sorted(lines)) + "\n# EOF\n"


def backfill_prometheus(series: list[dict], start_ms: int, end_ms: int, tsdb_dir: Path) -> None:
    """Write exported series' samples in (start, end] into a Prometheus data dir with promtool."""
    source = tsdb_dir.parent / "exported.om"
    source.write_text(to_openmetrics(series, start_ms, end_ms))
    subprocess.run(
        ["promtool", "tsdb", "create-blocks-from", "openmetrics", str(source), str(tsdb_dir)],
        check=True,
        capture_output=True,
        timeout=120,
    )


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
