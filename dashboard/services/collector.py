"""The collector: pulls a live stack into the store on an interval, in one background thread.

NOTE: DuckDB lets one process open a file read-write. The collector is that process's only
writer (its writes take the store's write lock), so run it inside the app or as
`kvscope collect`, never both on one file.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import pandas as pd

from dashboard.core.types import SeriesSamples
from dashboard.ingest import paging, prometheus, scrape
from dashboard.ingest.config import PrometheusConfig, ScrapeConfig, load_config, load_scrape_config
from dashboard.ingest.http_client import HttpClient, redact, redact_url, url_secrets
from dashboard.ingest.matrix_answer import parse_matrix_answer
from dashboard.store.blocks import roll_up
from dashboard.store.db import Store
from dashboard.store.queries import run_query
from dashboard.store.writes import write_query_results, write_series_samples

log = logging.getLogger(__name__)

# NOTE: Prometheus encodes one query's answer on about one core, so two chunk queries in flight
# keep a second core busy (the session's connection pool is thread-safe, and GETs change nothing
# else on it); a 6 h pull on 2 cores takes less than fetching its chunks one at a time.
PREFETCH_CHUNKS = 2
RESUME_OVERLAP_S = 60.0  # re-read the last minute: late samples land, duplicates are ignored
MAX_BACKOFF_FACTOR = 16  # after failures in a row the thread waits up to 16 intervals …
MAX_BACKOFF_S = 300.0  # … and never more than 5 minutes
MAX_ERROR_CHARS = 600


class PartialPullError(ConnectionError):
    """Some scrape targets failed; the others' samples were stored (num_stored of them)."""

    def __init__(self, message: str, num_stored: int):
        super().__init__(message)
        self.num_stored = num_stored


@dataclass(frozen=True)
class CollectorState:
    """What the sidebar shows: when we last pulled, how far behind the data is, the last error."""

    is_running: bool = False
    last_pull_at: datetime | None = None
    last_sample_ts: datetime | None = None
    num_stored: int = 0
    last_error: str | None = None
    num_failures: int = 0  # pulls in a row that stored nothing because of an error
    retry_in_s: float | None = None  # the wait before the next pull, after a failure

    def lag_s(self, now: datetime) -> float | None:
        """Seconds between now (naive UTC) and the newest stored sample."""
        return None if self.last_sample_ts is None else (now - self.last_sample_ts).total_seconds()


class Collector:
    """Pull from Prometheus or scrape targets into one store, once or every interval_s."""

    def __init__(
        self,
        store: Store,
        *,
        prometheus_config: PrometheusConfig | None = None,
        targets: tuple[scrape.Target, ...] = (),
        scrape_config: ScrapeConfig | None = None,
        since_s: float = 3600.0,
        interval_s: float = 15.0,
    ):
        if (prometheus_config is None) == (not targets):
            raise ValueError("give either a Prometheus URL or scrape targets, not both or neither")
        self.store, self.config, self.targets = store, prometheus_config, targets
        self.scrape_config = scrape_config or ScrapeConfig()
        if self.scrape_config.http.token and any(url_secrets(t.url) for t in targets):
            raise ValueError("a bearer token and a user:pass@ target URL both set credentials; give one")
        http = prometheus_config.http_settings() if prometheus_config else self.scrape_config.http
        self._secrets = http.secrets() + tuple(s for t in targets for s in url_secrets(t.url))
        if prometheus_config:
            self._secrets += url_secrets(prometheus_config.url)
        self.since_s, self.interval_s = since_s, interval_s
        self._names = prometheus.catalog_series_names()
        self._state = CollectorState()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def state(self) -> CollectorState:
        """A snapshot of the collector's state."""
        with self._lock:
            return self._state

    def pull_once(self, now_s: float | None = None) -> int:
        """One pull (or one round of scrapes); returns new samples stored. Errors are recorded, then
        raised: PartialPullError when some targets failed and the others' samples were stored."""
        now_s = prometheus.now_s() if now_s is None else now_s
        try:
            stored = self._pull_prometheus(now_s) if self.config else self._scrape_all(now_s)
        except PartialPullError as exc:
            self._record_success(now_s, exc.num_stored, error=self.describe(exc))
            raise
        except Exception as exc:
            self._update(last_error=self.describe(exc), last_pull_at=_utc(now_s))
            raise
        self._record_success(now_s, stored, error=None)
        return stored

    def describe(self, exc: BaseException) -> str:
        """One line for a pull's error, without this collector's credentials (tokens, passwords,
        URL userinfo); an unexpected exception type is named."""
        text = str(exc) if isinstance(exc, (ConnectionError, ValueError)) else f"{type(exc).__name__}: {exc}"
        return redact(" ".join(text.split()), self._secrets)[:MAX_ERROR_CHARS]

    def _record_success(self, now_s: float, stored: int, error: str | None) -> None:
        last = run_query(self.store, "ingest_last_ts", names=self._names).iloc[0].last_ts
        self._update(
            last_error=error,
            last_pull_at=_utc(now_s),
            num_stored=self.state().num_stored + stored,
            last_sample_ts=None if pd.isna(last) else pd.Timestamp(last).to_pydatetime(),
        )

    def start(self) -> None:
        """Run pull_once every interval_s in a daemon thread until stop()."""
        assert self._thread is None, "collector already started"
        self._update(is_running=True)
        self._thread = threading.Thread(target=self._loop, name="kvscope-collector", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 10.0) -> None:
        """Ask the thread to finish its current pull and wait for it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        self._update(is_running=False)

    def _loop(self) -> None:
        """Pull every interval; after a pull that stored nothing, back off (doubling, capped).

        NOTE: every exception of a pull is caught here: the thread is the app's only writer and
        must outlive any answer, and its error is in the state the sidebar shows (never only a log).
        """
        while not self._stop.is_set():
            try:
                self.pull_once()
                self._update(num_failures=0, retry_in_s=None)
                self.roll_up()
            except PartialPullError:
                self._update(num_failures=0, retry_in_s=None)  # some targets answered: no backoff
                log.warning("collector: %s", self.state().last_error)
                self.roll_up()
            except Exception:  # noqa: BLE001 (recorded in the state by pull_once, logged below)
                self._back_off()
            self._stop.wait(self.state().retry_in_s or self.interval_s)

    def roll_up(self) -> None:
        """Make the sample blocks of the whole 30 minutes the pulls filled (store/blocks.py).

        NOTE: after the pull, not in it: a pull stores and reports its samples as soon as they are
        fetched; until their blocks exist, queries read those samples one by one.
        """
        try:
            roll_up(self.store)
        except Exception as exc:
            self._update(last_error=self.describe(exc))  # NOTE: the sidebar shows it, as a pull's
            raise

    def _back_off(self) -> None:
        """After a pull that stored nothing: wait longer each time (doubling, capped)."""
        failures = self.state().num_failures + 1
        wait_s = min(self.interval_s * min(2 ** (failures - 1), MAX_BACKOFF_FACTOR), MAX_BACKOFF_S)
        wait_s = max(wait_s, self.interval_s)
        self._update(num_failures=failures, retry_in_s=wait_s)
        log.warning("collector: %s (retrying in %.0f s)", self.state().last_error, wait_s)

    def _pull_prometheus(self, now_s: float) -> int:
        last = run_query(self.store, "ingest_last_ts", names=self._names).iloc[0].last_ts
        start_s = now_s - self.since_s
        if not pd.isna(last):
            start_s = max(start_s, pd.Timestamp(last).replace(tzinfo=UTC).timestamp() - RESUME_OVERLAP_S)
        client = prometheus.connect(self.config)
        span = prometheus.Chunk(start_s, now_s)
        names = paging.present_names_paged(client, self._names, span)
        chunks = prometheus.plan_chunks(start_s, now_s) if names else []
        sel = prometheus.selector(names, self.config.matchers)
        return self._fetch_and_write(client, sel, chunks)

    def _fetch_and_write(self, client: prometheus.Client, sel: str, chunks: list[prometheus.Chunk]) -> int:
        """Query every chunk and store its answers; returns new samples stored.

        A chunk the server refuses for its size comes back in narrower pieces, and the narrower
        width holds for the rest of this pull (ingest/paging.py)."""
        stored = 0
        width = paging.ChunkWidth()
        # NOTE: chunks download while earlier ones are written (DuckDB and the socket both release
        # the GIL), so a long pull costs about its transfer time, not transfer + write. Two groups
        # are queued, so a worker starts the next query the moment it hands in an answer. The
        # chunks of a group are written in one transaction: a crash keeps every finished group,
        # and big transactions skip most of DuckDB's WAL (see write_query_results).
        fetcher = ThreadPoolExecutor(max_workers=PREFETCH_CHUNKS, thread_name_prefix="kvscope-fetch")
        try:
            queued: deque[Future[list[bytes]]] = deque()
            num_submitted = 0
            for first in range(0, len(chunks), PREFETCH_CHUNKS):
                while num_submitted < len(chunks) and num_submitted < first + 2 * PREFETCH_CHUNKS:
                    chunk = chunks[num_submitted]
                    queued.append(fetcher.submit(paging.fetch_paged, client, sel, chunk, width))
                    num_submitted += 1
                group = range(first, min(first + PREFETCH_CHUNKS, len(chunks)))
                where = redact_url(self.config.url)
                answers = []
                for i in group:
                    bodies = queued.popleft().result()
                    for j, body in enumerate(bodies):
                        part = f"{where} (chunk {i + 1}{f', part {j + 1}' if len(bodies) > 1 else ''})"
                        answers.append((parse_matrix_answer(body, part), part))
                stored += write_query_results(self.store, answers)
        finally:
            # NOTE: after a failed chunk the queued queries would only wait out their retries.
            fetcher.shutdown(wait=True, cancel_futures=True)
        return stored

    def _scrape_all(self, now_s: float) -> int:
        """Scrape every target, store what answered; PartialPullError naming the ones that did not."""
        ts = _utc(now_s)
        client = HttpClient(self.scrape_config.http)
        try:
            results = scrape.scrape_all(client, self.targets, ts, self.scrape_config)
        finally:
            client.close()
        frames = [r.samples for r in results if r.samples is not None]
        errors = [r.error for r in results if r.error is not None]
        stored = 0
        if frames:
            batch = SeriesSamples.concat(frames).only(set(self._names))
            stored = write_series_samples(self.store, batch, where="scrape")
        if errors and frames:
            num_ok = len(frames)
            raise PartialPullError(
                f"{'; '.join(errors)} (stored {stored:,} new samples from the other "
                f"{num_ok} target{'s' if num_ok > 1 else ''})",
                stored,
            )
        if errors:
            raise ConnectionError("; ".join(errors))
        return stored

    def _update(self, **changes) -> None:
        with self._lock:
            self._state = replace(self._state, **changes)


def _utc(epoch_s: float) -> datetime:
    """Naive UTC, like every timestamp in the store."""
    return datetime.fromtimestamp(epoch_s, tz=UTC).replace(tzinfo=None)


def parse_duration(text: str) -> float:
    """`30s`, `5m`, `6h`, `2d` or plain seconds → seconds."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    try:
        if text and text[-1] in units:
            return float(text[:-1]) * units[text[-1]]
        return float(text)
    except ValueError:
        raise ValueError(f"duration {text!r}: expected e.g. 30s, 5m, 6h") from None


def parse_positive_duration(text: str, flag: str) -> float:
    """parse_duration, refusing zero, negative and non-finite durations with the flag's name."""
    seconds = parse_duration(text)
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{flag} {text!r}: must be a positive duration, e.g. 15s")
    return seconds


SCRAPE_ENV = "KVSCOPE_SCRAPE"


def live_source_configured(env: dict[str, str]) -> bool:
    """True when the environment names a live source for the app's own collector."""
    return bool(env.get("KVSCOPE_PROMETHEUS_URL") or env.get(SCRAPE_ENV))


def collector_from_environment(store: Store, env: dict[str, str]) -> Collector:
    """The app's collector: $KVSCOPE_PROMETHEUS_URL (+ token etc.) or $KVSCOPE_SCRAPE targets
    (+ $KVSCOPE_SCRAPE_TOKEN_FILE, _CA_BUNDLE, _INSECURE_SKIP_VERIFY)."""
    interval_s = parse_positive_duration(
        env.get("KVSCOPE_COLLECT_INTERVAL", "15s"), "KVSCOPE_COLLECT_INTERVAL"
    )
    since_s = parse_positive_duration(env.get("KVSCOPE_COLLECT_SINCE", "1h"), "KVSCOPE_COLLECT_SINCE")
    if env.get(SCRAPE_ENV):
        targets = tuple(scrape.parse_target(t) for t in env[SCRAPE_ENV].split(",") if t.strip())
        config = load_scrape_config(env=env)
        return Collector(store, targets=targets, scrape_config=config, since_s=since_s, interval_s=interval_s)
    return Collector(store, prometheus_config=load_config(env=env), since_s=since_s, interval_s=interval_s)
