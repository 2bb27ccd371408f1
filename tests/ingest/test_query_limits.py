"""A server that refuses a query for its size makes a pull ask for less at once, not fail: real
VictoriaMetrics 1.79 with a small -search.maxSamplesPerQuery beside an unlimited one holding the
same samples, and an HTTP server answering in Mimir's words (Mimir itself cannot run here).

NOTE: VictoriaMetrics counts -search.maxSamplesPerQuery over whole storage blocks (at most 8,192
samples of one series each), so a shorter query reads fewer samples only where a series spans
several blocks: the history here is 2 h at 10 samples a second, about nine blocks a series.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

import numpy as np
import pytest

from dashboard.cli import main
from dashboard.ingest import paging, prometheus
from dashboard.ingest.config import PrometheusConfig
from dashboard.ingest.query_limits import limit_clause
from dashboard.services.collector import Collector
from dashboard.store.db import open_store
from tests.ingest.bad_servers import BadServer, send
from tests.ingest.victoria import VictoriaMetrics

HISTORY_S = 2 * 3600
SAMPLES_PER_S = 10
MAX_SAMPLES_PER_QUERY = 70_000  # a 1 h chunk of the history reads ~150,000; 1 s at most 8 blocks
NUM_WIDE_SERIES = 12  # 12 blocks under any one second: more than the limit however short
HISTORY = 'job="kvscope-history"'
SAMPLES = "SELECT series_key, epoch_ms(ts), value FROM samples JOIN series USING (series_id) ORDER BY ALL"


def counters(end_ms: int) -> list[dict]:
    """Two pods' prefix-cache counters over HISTORY_S, in VictoriaMetrics's import format."""
    rng = np.random.default_rng(7)
    num = HISTORY_S * SAMPLES_PER_S
    timestamps = (end_ms - np.arange(num)[::-1] * (1000 // SAMPLES_PER_S)).tolist()
    series = []
    for pod in ("vllm-0", "vllm-1"):
        queries = np.cumsum(rng.integers(0, 4000, num)).astype(float)
        hits = np.floor(queries * rng.uniform(0.2, 0.9))
        for name, values in (("queries", queries), ("hits", hits)):
            metric = {"__name__": f"vllm:prefix_cache_{name}_total", "job": "kvscope-history", "pod": pod}
            series.append({"metric": metric, "values": values.tolist(), "timestamps": timestamps})
    return series


def wide(end_ms: int) -> list[dict]:
    """NUM_WIDE_SERIES series of one full block each, all over the same 800 s."""
    timestamps = (end_ms - np.arange(8000)[::-1] * (1000 // SAMPLES_PER_S)).tolist()
    return [
        {
            "metric": {"__name__": "vllm:num_requests_running", "job": "kvscope-wide", "pod": f"vllm-{i}"},
            "values": [1.0] * len(timestamps),
            "timestamps": timestamps,
        }
        for i in range(NUM_WIDE_SERIES)
    ]


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """(unlimited, limited, end of the history in epoch s): both hold the same history."""
    end_s = (int(time.time()) // 3600 - 1) * 3600  # a whole hour, so samples sit on chunk edges
    unlimited = VictoriaMetrics(tmp_path_factory.mktemp("unlimited"))
    limited = VictoriaMetrics(
        tmp_path_factory.mktemp("limited"), flags=(f"-search.maxSamplesPerQuery={MAX_SAMPLES_PER_QUERY}",)
    )
    try:
        for vm in (unlimited, limited):
            vm.start()
            vm.import_series(counters(end_s * 1000))
        limited.import_series(wide(end_s * 1000))
        yield unlimited, limited, end_s
    finally:
        unlimited.stop()
        limited.stop()


def pull(url: str, path, end_s: int, matcher: str) -> list[tuple]:
    """One pull of the history (and 10 minutes each side) into a new store; its samples."""
    store = open_store(path)
    config = PrometheusConfig(url=url, matchers=(matcher,))
    Collector(store, prometheus_config=config, since_s=HISTORY_S + 1200).pull_once(end_s + 600)
    try:
        return store.cursor().execute(SAMPLES).fetchall()
    finally:
        store.close()


def num_refusals(caplog) -> int:
    """How many queries a server refused for their size, by the puller's log lines."""
    return sum(1 for r in caplog.records if r.name == paging.log.name and " refused a " in r.getMessage())


@pytest.fixture
def refusals(caplog):
    """Counts the puller's log lines about refused queries (caplog at INFO)."""
    caplog.set_level(logging.INFO, logger=paging.log.name)
    return lambda: num_refusals(caplog)


def test_a_pull_refused_for_its_size_pages_and_stores_what_an_unlimited_pull_stores(
    servers, tmp_path, refusals
):
    unlimited, limited, end_s = servers
    paged = pull(limited.url, tmp_path / "paged.duckdb", end_s, HISTORY)
    assert refusals() > 0, "the limited server refused nothing: the pull did not page"
    whole = pull(unlimited.url, tmp_path / "whole.duckdb", end_s, HISTORY)
    assert len(paged) == 4 * HISTORY_S * SAMPLES_PER_S
    assert paged == whole


def test_the_narrower_chunk_holds_for_the_rest_of_the_pull(servers, refusals):
    _, limited, end_s = servers
    client = prometheus.connect(PrometheusConfig(url=limited.url))
    sel = prometheus.selector(["vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"], (HISTORY,))
    width = paging.ChunkWidth()
    paging.fetch_paged(client, sel, prometheus.Chunk(end_s - 7200, end_s - 3600), width)
    num_refused = refusals()
    assert num_refused > 0 and width.width_s < 3600
    answers = paging.fetch_paged(client, sel, prometheus.Chunk(end_s - 3600, end_s), width)
    assert refusals() == num_refused  # asked at the narrower width straight away
    assert len(answers) == 3600 // width.width_s


def test_collect_fails_in_the_servers_words_when_even_one_second_is_refused(servers, tmp_path, capsys):
    _, limited, _ = servers
    db = tmp_path / "wide.duckdb"
    args = ["collect", "--prometheus", limited.url, "--match", "job=kvscope-wide", "--since", "3h", "--once"]
    code = main([*args, "--db", str(db)])
    err = capsys.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1, err
    assert (
        "refused even a 1 s query (HTTP 422: cannot select more than -search.maxSamplesPerQuery=70000" in err
    )
    store = open_store(db)
    assert store.cursor().execute("SELECT count(*) FROM samples").fetchall()[0][0] == 0
    store.close()


MIMIR_TOO_LONG = (
    "the query time range exceeds the limit (query length: {length}, limit: 30m0s) "
    "(err-mimir-max-query-length). To adjust the related per-tenant limit, configure "
    "-querier.max-partial-query-length, or contact your service administrator."
)


def mimir_like(max_span_s: float, spans: list[tuple[str, float]], refused: list[float]):
    """An API that refuses any lookup or query longer than max_span_s in Mimir's words; logs the
    (path, span) of every one it answers and the span of every one it refuses."""

    def behave(h: BaseHTTPRequestHandler, stop) -> None:
        path, _, query = h.path.partition("?")
        params = dict(urllib.parse.parse_qsl(query))
        if "query" in params:
            span_s = float(params["query"].rsplit("[", 1)[1].rstrip("ms]")) / 1000
            data = {"resultType": "matrix", "result": []}
        else:
            span_s = float(params["end"]) - float(params["start"])
            data = ["vllm:prefix_cache_hits_total"]
        if span_s > max_span_s:
            error = MIMIR_TOO_LONG.format(length=f"{span_s:g}s")
            body = {"status": "error", "errorType": "bad_data", "error": error}
            send(json.dumps(body), 422, "application/json")(h, stop)
            refused.append(span_s)
            return
        spans.append((path, span_s))
        send(json.dumps({"status": "success", "data": data}), 200, "application/json")(h, stop)

    return behave


def test_a_label_lookup_and_queries_refused_for_their_length_are_asked_in_halves(tmp_path):
    spans: list[tuple[str, float]] = []
    refused: list[float] = []
    behave = mimir_like(1800, spans, refused)
    server = BadServer({"/api/v1/label/__name__/values": behave, "/api/v1/query": behave})
    store = open_store(tmp_path / "m.duckdb")
    collector = Collector(store, prometheus_config=PrometheusConfig(url=server.url("")), since_s=2 * 3600)
    try:
        assert collector.pull_once() == 0
    finally:
        server.stop()
        store.close()
    assert collector.state().last_error is None
    lookups = [s for path, s in spans if path.endswith("/values")]
    queries = [s for path, s in spans if path.endswith("/query")]
    assert refused  # the 2 h lookup and the 1 h queries
    assert len(lookups) == 4 and sum(lookups) == pytest.approx(2 * 3600)  # the whole span, in quarters
    assert sum(queries) >= 2 * 3600


def test_chunk_edges_and_their_halves_fall_on_whole_seconds():
    chunks = prometheus.plan_chunks(100.25, 7300.75)
    assert chunks[0].start_s == 100 and chunks[-1].end_s == 7300.75  # never past the span's end
    assert all(c.end_s == int(c.end_s) for c in chunks[:-1])
    first, second = paging.halves(chunks[0])
    assert (first.start_s, first.end_s, second.end_s) == (100, 1900, 3700)
    assert paging.halves(prometheus.Chunk(5, 6)) is None  # the floor: one second


@pytest.mark.parametrize(
    ("error", "clause"),
    [
        # Prometheus / Thanos Query: --query.max-samples, the 11,000 points, --query.timeout
        ("query processing would load too many samples into memory in query execution", None),
        (
            "exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query "
            "resolution (?step=XX)",
            None,
        ),
        ("query timed out in expression evaluation", None),
        # Mimir: max query length, chunks per query, a frontend's prefix
        (MIMIR_TOO_LONG.format(length="1h0m0s"), None),
        (
            "expanding series: the query exceeded the maximum number of chunks (limit: 2000000 chunks) "
            "(err-mimir-max-chunks-per-query)",
            "the query exceeded the maximum number of chunks",
        ),
        # Cortex's querier, Thanos Store's request limits
        ("the query hit the max number of chunks limit (limit: 100 chunks)", None),
        (
            "rpc error: code = Aborted desc = exceeded series limit: limit 10 violated (got 11)",
            "code = Aborted desc = exceeded series limit",
        ),
        # VictoriaMetrics: the answer to an oversized raw-sample query, and a range query's points
        (
            'error when exporting data for query="{__name__=~\\"vllm:.*\\"}" on the time range '
            '(start=1, end=2): cannot fetch data for "filters=[{__name__=~\\"vllm:.*\\"}]": cannot select '
            "more than -search.maxSamplesPerQuery=1000 samples; possible solutions: to increase it",
            "cannot select more than -search.maxSamplesPerQuery=1000 samples",
        ),
        (
            "too many points for the given step=1000, start=1 and end=2: 101; cannot exceed "
            "-search.maxPointsPerTimeseries=20",
            None,
        ),
    ],
)
def test_each_servers_limit_is_recognised_and_quoted_from_its_own_clause(error, clause):
    assert limit_clause(error).startswith(clause or error)


@pytest.mark.parametrize(
    "error",
    [
        '1:5: parse error: unexpected character: "}"',
        'invalid parameter "time": cannot parse',
        "",
        "unauthorized",
    ],
)
def test_other_errors_are_not_taken_for_limits(error):
    assert limit_clause(error) is None
