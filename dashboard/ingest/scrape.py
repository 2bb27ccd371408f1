"""Direct scrape mode: read pods' /metrics pages without a Prometheus server.

Targets are scraped concurrently under one deadline per round, each page under a size limit,
and one target's failure is that target's alone: the round returns every page it could read and
an error for each one it could not.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlparse

import numpy as np
from prometheus_client.parser import text_string_to_metric_families

from dashboard.core.types import SeriesSamples
from dashboard.ingest.config import ScrapeConfig
from dashboard.ingest.http_client import HttpClient, redact_url

MAX_PARALLEL_SCRAPES = 16
_LATE_S = 1.0  # NOTE: a worker notices the deadline at its next read; the round waits this much more


@dataclass(frozen=True)
class Target:
    """One /metrics endpoint and the pod label its samples get."""

    url: str
    pod: str

    def __repr__(self) -> str:
        return f"Target(url={redact_url(self.url)!r}, pod={self.pod!r})"

    __str__ = __repr__


@dataclass(frozen=True)
class PageResult:
    """One target's scrape: its samples, or the error that kept them out (never both)."""

    target: Target
    samples: SeriesSamples | None = None
    error: str | None = None


def parse_target(text: str) -> Target:
    """`URL` or `POD=URL`; the pod defaults to the URL's host:port."""
    pod, sep, url = text.partition("=")
    if not sep or "://" in pod:
        pod, url = "", text
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError(f"--scrape {redact_url(text)!r}: expected URL or POD=URL with http(s)://")
    return Target(url=url, pod=pod or parsed.netloc.rpartition("@")[2])


def parse_exposition(text: str, pod: str, ts: datetime) -> SeriesSamples:
    """Prometheus text exposition → the typed record, one series per sample name and label set as exposed.

    A series repeated in one page keeps its first sample, as Prometheus's scrape loop does.
    NaN and ±Inf values are kept as sent (the windowed queries skip them and say so).
    """
    metrics, labels, values = [], [], []
    seen: set[tuple] = set()
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                key = (sample.name, frozenset(sample.labels.items()))
                if key in seen:
                    continue
                seen.add(key)
                metrics.append(sample.name)
                labels.append({**sample.labels, "pod": pod})
                values.append(float(sample.value))
    except Exception as exc:  # NOTE: the parser raises IndexError as well as ValueError on bad lines
        raise ValueError(f"not a Prometheus exposition ({type(exc).__name__}: {str(exc)[:120]})") from None
    return SeriesSamples(
        metrics=metrics,
        labels=labels,
        series=np.arange(len(metrics), dtype=np.int64),
        ts=np.full(len(metrics), np.datetime64(ts.replace(tzinfo=None), "us")),
        values=np.asarray(values, np.float64),
    )


def decode_page(body: bytes, content_type: str) -> str:
    """The page's text: its declared charset, else UTF-8 (the exposition format's own encoding)."""
    charset = "utf-8"
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip('"').lower()
    try:
        return body.decode(charset)
    except LookupError:
        raise ValueError(f"unknown charset {charset!r}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"not valid {charset} at byte {exc.start}") from None


def scrape(
    client: HttpClient, target: Target, ts: datetime, config: ScrapeConfig, started: float | None = None
) -> SeriesSamples:
    """GET one target's page (within config.deadline_s of `started`, a time.monotonic(); default
    now) and parse it; ConnectionError or ValueError naming the target."""
    where = f"scrape of {target.pod} at {redact_url(target.url)}"
    answer = client.get(
        target.url,
        what=f"scrape of {target.pod}",
        timeout_s=config.deadline_s,
        deadline_s=config.deadline_s,
        max_bytes=config.max_page_bytes,
        started=started,
    )
    if answer.status != 200:
        raise ConnectionError(f"{where} answered HTTP {answer.status}")
    try:
        return parse_exposition(decode_page(answer.body, answer.content_type), target.pod, ts)
    except ValueError as exc:
        raise ValueError(f"{where}: {client.redact(str(exc), target.url)}") from None


def scrape_all(
    client: HttpClient, targets: tuple[Target, ...], ts: datetime, config: ScrapeConfig
) -> list[PageResult]:
    """Scrape every target at once; one result per target, in order, within config.deadline_s."""
    started = time.monotonic()
    pool = ThreadPoolExecutor(
        max_workers=min(len(targets), MAX_PARALLEL_SCRAPES), thread_name_prefix="kvscope-scrape"
    )
    try:
        futures = [pool.submit(_scrape_one, client, t, ts, config, started) for t in targets]
        wait(futures, timeout=config.deadline_s + _LATE_S)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    late = f"sent no complete answer within {config.deadline_s:g} s"
    return [
        f.result() if f.done() else PageResult(t, error=f"scrape of {t.pod} at {redact_url(t.url)} {late}")
        for t, f in zip(targets, futures, strict=True)
    ]


def _scrape_one(
    client: HttpClient, target: Target, ts: datetime, config: ScrapeConfig, started: float
) -> PageResult:
    """One target's PageResult; every error is caught here, so no target can fail the round."""
    try:
        return PageResult(target, samples=scrape(client, target, ts, config, started))
    except (ConnectionError, ValueError) as exc:
        return PageResult(target, error=client.redact(str(exc), target.url))
    except Exception as exc:  # NOTE: anything else is a bug, but still only this target's
        return PageResult(
            target,
            error=client.redact(f"scrape of {target.pod} failed: {type(exc).__name__}: {exc}", target.url),
        )
