"""Direct scrape mode: read pods' /metrics pages without a Prometheus server."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlparse

import pandas as pd
import requests
from prometheus_client.parser import text_string_to_metric_families


@dataclass(frozen=True)
class Target:
    """One /metrics endpoint and the pod label its samples get."""

    url: str
    pod: str


def parse_target(text: str) -> Target:
    """`URL` or `POD=URL`; the pod defaults to the URL's host:port."""
    pod, sep, url = text.partition("=")
    if not sep or "://" in pod:
        pod, url = "", text
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"--scrape {text!r}: expected URL or POD=URL with http(s)://")
    return Target(url=url, pod=pod or parsed.netloc)


def parse_exposition(text: str, pod: str, ts: datetime) -> pd.DataFrame:
    """Prometheus text exposition → (ts, metric, labels, value) rows with sample names as exposed."""
    rows = []
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = dict(sample.labels)
            labels["pod"] = pod
            rows.append((ts, sample.name, labels, float(sample.value)))
    return pd.DataFrame(rows, columns=["ts", "metric", "labels", "value"])


def scrape(target: Target, ts: datetime, timeout_s: float = 10.0) -> pd.DataFrame:
    """GET the target's exposition and parse it; ConnectionError on any failure."""
    try:
        response = requests.get(target.url, timeout=timeout_s)
        response.raise_for_status()
    except requests.RequestException as exc:
        raise ConnectionError(f"scrape of {target.url} failed: {type(exc).__name__}") from None
    try:
        return parse_exposition(response.text, target.pod, ts)
    except ValueError as exc:
        raise ValueError(f"{target.url}: not a Prometheus exposition ({exc})") from None
