"""Pull raw samples from a PromQL-compatible HTTP API (its standard /api/v1 endpoints).

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

from urllib3.util.retry import Retry

from dashboard.core import catalog
from dashboard.ingest.config import PrometheusConfig
from dashboard.ingest.http_client import MAX_DETAIL_CHARS, Answer, HttpClient, redact_url
from dashboard.ingest.query_limits import QueryLimitError, limit_clause

log = logging.getLogger(__name__)

MAX_POINTS_PER_SERIES = 11_000  # Prometheus's per-query resolution limit
MIN_SCRAPE_INTERVAL_S = 1.0  # NOTE: chunks are sized so even a 1 s scrape stays under the limit
DEFAULT_CHUNK_S = 3600.0
ANSWER_DEADLINE_S = 300.0  # a whole answer, however it trickles (per-read waits are timeout_s)
MAX_ANSWER_BYTES = 1 << 30  # NOTE: an hour of 8 pods is ~20 MB; this bounds a broken answer
MAX_LABELS_BYTES = 64 << 20
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
    """Split (start, end] into chunks of which none holds more than MAX_POINTS_PER_SERIES samples
    a series; start is moved back to a whole second and every edge between chunks is one.

    NOTE: whole seconds are exact in every server's time parsing; VictoriaMetrics truncates
    `seconds * 1000`, so a fractional edge between two chunks could move a millisecond and drop
    a sample sitting on it from both. The span's end stays where it is (never past "now").
    """
    start_s = math.floor(start_s)
    if end_s <= start_s:
        return []
    chunk_s = max(1, math.floor(min(chunk_s, MAX_POINTS_PER_SERIES * MIN_SCRAPE_INTERVAL_S)))
    count = math.ceil((end_s - start_s) / chunk_s)
    return [Chunk(start_s + i * chunk_s, min(end_s, start_s + (i + 1) * chunk_s)) for i in range(count)]


@dataclass(frozen=True)
class Client:
    """One Prometheus API: its base URL and the HTTP client carrying auth, TLS and retries."""

    http: HttpClient
    url: str
    timeout_s: float


def connect(config: PrometheusConfig) -> Client:
    """A client with the config's auth, TLS settings, timeout and retries with backoff."""
    # NOTE: a 5xx that outlasts the retries is answered, not raised, so its status can be named.
    retry = Retry(
        total=3,
        backoff_factor=0.5,
        status_forcelist=(429, 500, 502, 503, 504),
        allowed_methods=("GET", "POST"),
        raise_on_status=False,
    )
    return Client(HttpClient(config.http_settings(), retry=retry), config.url.rstrip("/"), config.timeout_s)


def present_names(client: Client, names: list[str], start_s: float, end_s: float) -> list[str]:
    """The names among `names` with samples in [start, end] (so queries select only those)."""
    url = f"{client.url}/api/v1/label/__name__/values"
    answer = _get(client, url, {"start": start_s, "end": end_s}, MAX_LABELS_BYTES)
    try:
        parsed = json.loads(answer.body)
        known = parsed["data"] if parsed.get("status") == "success" else None
    except (ValueError, AttributeError, KeyError):
        known = None
    if not isinstance(known, list):
        raise ValueError(f"{_where(url)} sent {_kind(answer)}: not a Prometheus API answer")
    present = set(known)
    return [n for n in names if n in present]


def fetch_chunk(client: Client, sel: str, chunk: Chunk) -> bytes:
    """The raw JSON answer of the chunk's raw-sample query, unparsed (the store parses it);
    QueryLimitError when the server refuses it for its size."""
    end_ms = round(chunk.end_s * 1000)
    window_ms = max(end_ms - round(chunk.start_s * 1000), 1)
    # NOTE: VictoriaMetrics moves a query within -search.latencyOffset (30 s) of now back by that
    # much unless `nocache=1`; raw samples carry their own times, so the newest ones are wanted.
    # Other servers ignore the parameter.
    params = {"query": f"{sel}[{window_ms}ms]", "time": f"{end_ms / 1000:.3f}", "nocache": "1"}
    return _get(client, f"{client.url}/api/v1/query", params, MAX_ANSWER_BYTES).body


def _get(client: Client, url: str, params: dict, max_bytes: int) -> Answer:
    """GET an API endpoint; ConnectionError naming the status and the (redacted) URL unless 200."""
    answer = client.http.get(
        url,
        what="Prometheus",
        params=params,
        timeout_s=client.timeout_s,
        deadline_s=max(ANSWER_DEADLINE_S, client.timeout_s),
        max_bytes=max_bytes,
    )
    if answer.status != 200:
        error = client.http.api_error(answer, url, max_chars=None)
        limit = limit_clause(error)
        if limit is not None:
            raise QueryLimitError(_where(url), answer.status, limit[:MAX_DETAIL_CHARS])
        detail = (
            f": {error[:MAX_DETAIL_CHARS]}" if error else f" ({_kind(answer)}: not a Prometheus API answer)"
        )
        raise ConnectionError(f"{_where(url)} answered HTTP {answer.status}{detail}")
    return answer


def _where(url: str) -> str:
    return f"Prometheus at {redact_url(url)}"


def _kind(answer: Answer) -> str:
    """What the body looks like, without quoting it (it may hold anything)."""
    kind = answer.content_type.split(";")[0].strip() or "no content type"
    return f"{len(answer.body):,} bytes of {kind}"


def now_s() -> float:
    """Wall-clock epoch seconds (ingest, unlike the engine, may read the clock)."""
    return datetime.now(tz=UTC).timestamp()
