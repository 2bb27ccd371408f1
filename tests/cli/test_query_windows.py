"""Windows the data can answer: max(step, 4 × the observed scrape interval) for charts, and
`kvscope query` saying so (one line) when a step is below two scrape intervals."""

from __future__ import annotations

from datetime import timedelta

from dashboard.cli import main
from dashboard.services import overview, windows
from dashboard.store.db import open_store
from dashboard.store.writes import write_samples
from tests.store.helpers import SCRAPE_S, T0, at, counter_rows, frame

HITS = [10 * i for i in range(40)]
QUERIES = [40 * i for i in range(40)]


def filled(store):
    write_samples(
        store,
        frame(
            counter_rows("vllm:prefix_cache_hits_total", {"pod": "a"}, HITS)
            + counter_rows("vllm:prefix_cache_queries_total", {"pod": "a"}, QUERIES)
        ),
    )
    return store


def test_observed_interval_and_the_window_it_allows(store):
    filled(store)
    assert windows.observed_scrape_interval_s(store) == SCRAPE_S
    assert windows.effective_window_s(store, 10) == 4 * SCRAPE_S
    assert windows.effective_window_s(store, 600) == 600


def test_an_empty_store_keeps_the_requested_window(store):
    assert windows.observed_scrape_interval_s(store) is None
    assert windows.effective_window_s(store, 10) == 10


def test_overview_charts_use_and_name_the_effective_window(store):
    filled(store)
    tr = overview.TimeRange(start=at(8), end=at(36), step_s=15.0)  # a step of one scrape interval
    assert overview.effective_window_s(store, tr) == 60
    rows = overview.hit_rate(store, overview.Selection(tr))
    assert (rows.ts.drop_duplicates().diff().dropna() == timedelta(seconds=60)).all()
    assert len(rows) and (rows.hit_rate == 0.25).all()  # every window holds four scrapes
    assert overview.window_caption(store, tr) == "rates over 60 s windows (≥ 4 scrape intervals)"


def query(path, step: float, fmt: str = "table") -> int:
    end = T0 + timedelta(seconds=SCRAPE_S * 40)
    return main(
        ["query", "hit_rate", "--db", str(path), "--param", f"start={T0.isoformat()}Z",
         "--param", f"end={end.isoformat()}Z", "--param", f"step={step}", "--format", fmt]
    )  # fmt: skip


def test_query_with_a_step_below_two_scrape_intervals_says_so(tmp_path, capsys):
    path = tmp_path / "k.duckdb"
    filled(open_store(path)).close()
    assert query(path, 10) == 0
    out, err = capsys.readouterr()
    assert "(no rows)" not in out
    assert err.count("\n") == 1
    assert "step 10 s is below two scrape intervals (observed 15 s)" in err and "step=60" in err


def test_query_with_an_answerable_step_prints_rows_and_no_note(tmp_path, capsys):
    path = tmp_path / "k.duckdb"
    filled(open_store(path)).close()
    assert query(path, 60, "json") == 0
    out, err = capsys.readouterr()
    assert err == "" and '"hit_rate": 0.25' in out
