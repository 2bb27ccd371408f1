"""run_query reads a named query's rows as DuckDB's relation API would give them, caps them, and
prints nothing else (store/queries.py runs the statement through the DB-API for speed)."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

import pandas as pd
import pytest

from dashboard.store.queries import bind_params, load_read_query, run_query
from dashboard.store.writes import write_samples
from tests.store.helpers import T0, counter_rows, frame

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


def through_a_relation(store, name: str, **params) -> pd.DataFrame:
    """The same query as DuckDB's relation API reads it (what run_query did before)."""
    query = load_read_query(name)
    cur = store.cursor()
    try:
        return cur.sql(query.sql, params=bind_params(query, params)).to_arrow_table().to_pandas()
    finally:
        cur.close()


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
