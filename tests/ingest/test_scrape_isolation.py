"""One bad scrape target never stops the others: its error is reported, theirs are stored, and a
scrape round ends at its deadline with memory bounded whatever a server sends (issue 14, item 1)."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from dashboard.ingest.config import ScrapeConfig
from dashboard.ingest.scrape import Target
from dashboard.services.collector import Collector, PartialPullError
from tests.ingest.bad_servers import (
    CHOKING_PAGE,
    GOOD_PAGE,
    BadServer,
    huge,
    reset_mid_body,
    send,
    trickle,
)

DEADLINE_S = 2.0


@pytest.fixture
def server():
    s = BadServer(
        {
            "/good": send(GOOD_PAGE),
            "/500": send("boom\n", 500, "text/plain"),
            "/malformed": send("<html><body>not metrics</body></html>\n", 200, "text/html"),
            "/choking": send(CHOKING_PAGE),
            "/trickle": trickle(),
            "/reset": reset_mid_body(),
            "/huge": huge(),
            "/huge-declared": huge(declare_length=True),
        }
    )
    yield s
    s.stop()


def pods_stored(store) -> dict[str, int]:
    rows = store.cursor().execute(
        "SELECT s.pod, count(*) FROM samples x JOIN series s USING (series_id) GROUP BY s.pod"
    )
    return dict(rows.fetchall())


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/500", "answered HTTP 500"),
        ("/malformed", "not a Prometheus exposition"),
        ("/choking", "not a Prometheus exposition"),
        ("/trickle", f"no complete answer within {DEADLINE_S:g} s"),
        ("/reset", "broke off its answer"),
        ("/huge", "limit; refused"),
    ],
)
def test_a_bad_target_is_reported_and_the_good_ones_are_stored(server, store, path, says):
    targets = (Target(server.url("/good"), "a"), Target(server.url(path), "b"))
    collector = Collector(store, targets=targets, scrape_config=ScrapeConfig(deadline_s=DEADLINE_S))
    started = time.monotonic()
    with pytest.raises(PartialPullError) as err:
        collector.pull_once()
    assert time.monotonic() - started < DEADLINE_S + 2.5  # the round ends at its deadline
    message = str(err.value)
    assert says in message and f"scrape of b at {server.url(path)}" in message, message
    assert "stored 2 new samples from the other 1 target" in message
    assert pods_stored(store) == {"a": 2}
    assert collector.state().last_error == message
    assert collector.state().num_stored == 2


def test_targets_are_scraped_at_once_so_two_trickles_cost_one_deadline(server, store):
    targets = tuple(Target(server.url("/trickle"), f"slow-{i}") for i in range(3))
    targets += (Target(server.url("/good"), "a"),)
    collector = Collector(store, targets=targets, scrape_config=ScrapeConfig(deadline_s=DEADLINE_S))
    started = time.monotonic()
    with pytest.raises(PartialPullError):
        collector.pull_once()
    assert time.monotonic() - started < DEADLINE_S + 2.5  # not 3 × the deadline
    assert pods_stored(store) == {"a": 2}


def test_a_200_mb_page_is_refused_and_memory_stays_bounded(server, store):
    config = ScrapeConfig(deadline_s=60.0)
    collector = Collector(store, targets=(Target(server.url("/huge"), "b"),), scrape_config=config)
    tracemalloc.start()
    try:
        with pytest.raises(ConnectionError, match="limit; refused"):
            collector.pull_once()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < config.max_page_bytes + (32 << 20), f"peak {peak / 1e6:.0f} MB while refusing a 200 MB page"


def test_a_page_declaring_200_mb_is_refused_before_its_body_is_read(server, store):
    collector = Collector(store, targets=(Target(server.url("/huge-declared"), "b"),))
    started = time.monotonic()
    with pytest.raises(ConnectionError, match=r"sent 200 MB, over the 67 MB limit; refused"):
        collector.pull_once()
    assert time.monotonic() - started < 5


def test_every_target_failing_stores_nothing_and_names_each(server, store):
    targets = (Target(server.url("/500"), "b"), Target(server.url("/malformed"), "c"))
    collector = Collector(store, targets=targets, scrape_config=ScrapeConfig(deadline_s=DEADLINE_S))
    with pytest.raises(ConnectionError) as err:
        collector.pull_once()
    assert not isinstance(err.value, PartialPullError)
    assert "scrape of b at" in str(err.value) and "scrape of c at" in str(err.value)
    assert pods_stored(store) == {}
