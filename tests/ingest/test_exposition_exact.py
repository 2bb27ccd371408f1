"""A /metrics page is stored exactly as exposed: a repeated series once, label sets that look alike
as two series, UTF-8 label values without a declared charset, NaN and ±Inf as sent (issue 14, item 4)."""

from __future__ import annotations

import math

import pytest

from dashboard.ingest.scrape import Target
from dashboard.services.collector import Collector
from tests.ingest.bad_servers import BadServer, send

QUERIES = "vllm:prefix_cache_queries_total"


def scraped(store, page: str, content_type: str = "text/plain; version=0.0.4; charset=utf-8") -> list[tuple]:
    """Scrape one page into the store; its (labels without pod, value) rows, ordered."""
    server = BadServer({"/metrics": send(page.encode(), content_type=content_type)})
    try:
        Collector(store, targets=(Target(server.url("/metrics"), "a"),)).pull_once()
    finally:
        server.stop()
    rows = store.cursor().execute(
        "SELECT map_from_entries(list_filter(map_entries(s.labels), lambda e: e.key != 'pod')), x.value"
        " FROM samples x JOIN series s USING (series_id) ORDER BY x.value"
    )
    return rows.fetchall()


def test_a_series_repeated_in_one_page_is_stored_once_with_its_first_value(store):
    rows = scraped(store, f'{QUERIES}{{model_name="m"}} 100\n{QUERIES}{{model_name="m"}} 200\n')
    assert rows == [({"model_name": "m"}, 100.0)]


def test_label_sets_that_join_to_the_same_text_are_two_series(store):
    page = f'{QUERIES}{{engine="a,namespace=b"}} 1\n{QUERIES}{{engine="a",namespace="b"}} 2\n'
    rows = scraped(store, page)
    assert rows == [({"engine": "a,namespace=b"}, 1.0), ({"engine": "a", "namespace": "b"}, 2.0)]
    assert store.cursor().execute("SELECT count(*) FROM series").fetchall()[0][0] == 2


def test_utf8_label_values_are_kept_when_the_server_names_no_charset(store):
    rows = scraped(store, f'{QUERIES}{{model_name="café-模型"}} 7\n', content_type="text/plain")
    assert rows == [({"model_name": "café-模型"}, 7.0)]


@pytest.mark.parametrize(("text", "check"), [("NaN", math.isnan), ("+Inf", lambda v: v == math.inf)])
def test_non_finite_samples_are_stored_as_sent(store, text, check):
    rows = scraped(store, f'{QUERIES}{{model_name="m"}} {text}\n')
    assert len(rows) == 1 and check(rows[0][1])
