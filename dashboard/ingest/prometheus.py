"""Pull raw samples from a PromQL-compatible HTTP API with prometheus-api-client.

Raw samples, not a re-sampled range query: an instant query of `selector[W]` at a chunk's end
returns every sample with its own timestamp, so the store's windowed rates are Prometheus's.
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime

import requests
from prometheus_api_client import PrometheusApiClientException, PrometheusConnect
from urllib3.util.retry import Retry

from dashboard.core import catalog
from dashboard.ingest.config import PrometheusConfig

log = logging.getLogger(__name__)

MAX_POINTS_PER_SERIES = 11_000  # Prometheus's per-query resolution limit
MIN_SCRAPE_INTERVAL_S = 1.0  # NOTE: chunks are sized so even a 1 s scrape stays under the limit
DEFAULT_CHUNK_S = 3600.0
_MATCHER = re.compile(r"^([a-zA-Z_][a-zA-Z0-9_]*)(=~|!~|!=|=)(.*)$")


@dataclass(frozen=True)
class Chunk:
    """One query's time span (start, end], epoch seconds."""

    start_s: float
    end_s: float


def catalog_series_names() -> list[str]:
    """Every exported sample name the catalog knows (histograms: _bucket, _sum, _count)."""
    names: list[str] = []
    for s in catalog.CATALOG.values():
        for name in s.names:
            names += (
                [f"{name}_bucket", f"{name}_sum", f"{name}_count"] if s.kind == catalog.HISTOGRAM else [name]
            )
    return sorted(set(names))


def parse_matcher(text: str) -> str:
    """`LABEL=VALUE`, `LABEL!=VALUE`, `LABEL=~REGEX`, `LABEL!~REGEX` → a quoted PromQL matcher."""
    m = _MATCHER.match(text)
    if not m:
        raise ValueError(f"--match {text!r}: expected LABEL=VALUE or LABEL=~REGEX")
    label, op, value = m.groups()
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'{label}{op}"{escaped}"'


def selector(names: list[str], matchers: tuple[str, ...]) -> str:
    """`{__name__=~"a|b", m1, m2}` for the given names and extra matchers."""
    alternatives = "|".join(re.escape(n) for n in names)
    return "{" + ", ".join([f'__name__=~"{alternatives}"', *matchers]) + "}"


def plan_chunks(start_s: float, end_s: float, chunk_s: float = DEFAULT_CHUNK_S) -> list[Chunk]:
    """Split (start, end] so no chunk holds more than MAX_POINTS_PER_SERIES samples a series."""
    if end_s <= start_s:
        return []
    chunk_s = min(chunk_s, MAX_POINTS_PER_SERIES * MIN_SCRAPE_INTERVAL_S)
    count = math.ceil((end_s - start_s) / chunk_s)
    return [Chunk(start_s + i * chunk_s, min(end_s, start_s + (i + 1) * chunk_s)) for i in range(count)]


@dataclass(frozen=True)
class Client:
    """prometheus-api-client for the API's small answers; its session for bulk sample bodies.

    The session carries the auth headers, TLS settings and the library's retry adapter, so both
    paths authenticate, verify and retry alike.
    """

    api: PrometheusConnect
    session: requests.Session
    url: str
    timeout_s: float


def connect(config: PrometheusConfig) -> Client:
    """A client with the config's auth, TLS settings, timeout and retries with backoff."""
    session = requests.Session()
    session.verify = config.ca_bundle or config.verify_tls
    if config.token:
        session.headers["Authorization"] = f"Bearer {config.token}"
    if config.username:
        session.auth = (config.username, config.password)
    retry = Retry(
        total=3,
        backoff_factor=0.5,
        status_forcelist=(429, 500, 502, 503, 504),
        allowed_methods=("GET", "POST"),
    )
    api = PrometheusConnect(
        url=config.url,
        disable_ssl=not config.verify_tls,
        retry=retry,
        session=session,
        timeout=config.timeout_s,
    )
    return Client(api=api, session=session, url=api.url, timeout_s=config.timeout_s)


def present_names(client: Client, names: list[str], start_s: float, end_s: float) -> list[str]:
    """The names among `names` with samples in [start, end] (so queries select only those)."""
    try:
        known = set(client.api.get_label_values("__name__", params={"start": start_s, "end": end_s}))
    except PrometheusApiClientException as exc:
        raise ConnectionError(
            f"Prometheus at {client.url} refused the metric-name lookup: {_short(exc)}"
        ) from None
    except requests.RequestException as exc:
        raise ConnectionError(f"Prometheus at {client.url} is unreachable: {type(exc).__name__}") from None
    return [n for n in names if n in known]


def fetch_chunk(client: Client, sel: str, chunk: Chunk) -> bytes:
    """The raw JSON answer of the chunk's raw-sample query, unparsed (the store parses it)."""
    window_ms = max(int(round((chunk.end_s - chunk.start_s) * 1000)), 1)
    params = {"query": f"{sel}[{window_ms}ms]", "time": chunk.end_s}
    try:
        response = client.session.get(f"{client.url}/api/v1/query", params=params, timeout=client.timeout_s)
    except requests.RequestException as exc:
        raise ConnectionError(f"Prometheus at {client.url} is unreachable: {type(exc).__name__}") from None
    if response.status_code != 200:
        raise ConnectionError(
            f"Prometheus at {client.url} refused the query: HTTP {response.status_code} "
            f"{_error_text(response)}"
        )
    return response.content


def _error_text(response: requests.Response) -> str:
    """The API's `error` field when the body is its JSON error object, else the body's start."""
    try:
        return str(json.loads(response.content).get("error", ""))[:200]
    except (ValueError, AttributeError):
        return response.text[:200]


def now_s() -> float:
    """Wall-clock epoch seconds (ingest, unlike the engine, may read the clock)."""
    return datetime.now(tz=UTC).timestamp()


def _short(exc: Exception) -> str:
    return str(exc).splitlines()[0][:200]
