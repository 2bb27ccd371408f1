"""run_query reads a named query's rows as DuckDB's relation API would give them, caps them, and
prints nothing else (store/queries.py runs the statement through the DB-API for speed)."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

import pandas as pd
import pytest

from dashboard.store import queries
from dashboard.store.queries import run_query
from dashboard.store.writes import write_samples
from tests.store.helpers import T0, counter_rows, frame, through_a_relation

HITS, QUERIES = "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"
PARAMS = {"start": T0, "end": T0 + timedelta(seconds=300), "step": 60}


@pytest.fixture
def counters(store):
    rows = []
    for pod in ("a", "b"):
        rows += counter_rows(HITS, {"pod": pod}, [10 * i for i in range(20)])
        rows += counter_rows(QUERIES, {"pod": pod}, [30 * i for i in range(20)])
    write_samples(store, frame(rows))
    return store


@pytest.mark.parametrize("name", ["hit_rate", "time_bounds", "pods"])
def test_rows_and_types_are_the_relation_apis(counters, name) -> None:
    params = PARAMS if name == "hit_rate" else {}
    got = run_query(counters, name, **params)
    assert len(got) > 0
    pd.testing.assert_frame_equal(got, through_a_relation(counters, name, **params), check_exact=True)


def test_more_rows_than_the_cap_is_one_error_naming_the_query(counters) -> None:
    assert len(run_query(counters, "hit_rate", **PARAMS)) > 3
    with pytest.raises(ValueError, match=r"query hit_rate returned more than 3 rows; narrow the range"):
        run_query(counters, "hit_rate", max_rows=3, **PARAMS)


def test_a_query_prints_no_warning_even_where_warnings_are_errors(tmp_path) -> None:
    script = (
        "from datetime import datetime\n"
        "from dashboard.store.db import open_store\n"
        "from dashboard.store.queries import run_query\n"
        f"store = open_store({str(tmp_path / 'w.duckdb')!r})\n"
        "run_query(store, 'hit_rate', start=datetime(2026, 1, 1), end=datetime(2026, 1, 2), step=60)\n"
    )
    done = subprocess.run([sys.executable, "-W", "error", "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-2000:]


MIXED = (
    "SELECT i, make_timestamp(i * 1000000) AS ts, [i, i + 1] AS pair, 'pod-' || i AS pod,"
    " CASE WHEN i % 7 = 0 THEN NULL ELSE i / 2 END AS half,"
    " CASE WHEN i < 2048 THEN NULL ELSE 'late' END AS late FROM range(5000) t(i) ORDER BY i"
)


def test_a_result_read_in_many_chunks_is_the_relation_apis_and_the_cap_stops_it(monkeypatch, store) -> None:
    # NOTE: 2,048 rows a chunk: three here, the first with no text in `late`
    monkeypatch.setattr(queries, "CHUNK_VECTORS", 1)
    cur = store.cursor()
    try:
        got = queries._fetch_capped(cur.execute(MIXED), "mixed", 5000)
        want = cur.sql(MIXED).to_arrow_table().to_pandas()
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        with pytest.raises(ValueError, match=r"query mixed returned more than 4,999 rows"):
            queries._fetch_capped(cur.execute(MIXED), "mixed", 4999)
        empty = queries._fetch_capped(cur.execute(MIXED.replace("range(5000)", "range(0)")), "mixed", 10)
        assert list(empty.columns) == list(want.columns) and len(empty) == 0
    finally:
        cur.close()
