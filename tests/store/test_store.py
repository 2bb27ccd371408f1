"""The store: migrations, idempotent writes, and bad input leaving the store as it was."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.store.db import migration_files, open_store
from dashboard.store.queries import list_queries, load_query
from dashboard.store.writes import write_samples
from tests.store.helpers import at, counter_rows, frame

HITS = "vllm:prefix_cache_hits_total"


def count(store, table: str) -> int:
    return store.cursor().execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]


def test_every_migration_is_applied_once_and_recorded(tmp_path):
    path = tmp_path / "s.duckdb"
    open_store(path).close()
    store = open_store(path)  # reopening applies nothing new
    versions = [
        r[0] for r in store.cursor().execute("SELECT version FROM schema_migrations ORDER BY 1").fetchall()
    ]
    assert versions == [int(f.name[:3]) for f in migration_files()]
    store.close()


def test_writing_the_same_samples_twice_stores_them_once(store):
    rows = frame(counter_rows(HITS, {"pod": "a"}, [1, 2, 3]))
    assert write_samples(store, rows) == 3
    assert write_samples(store, rows) == 0
    assert count(store, "samples") == 3
    assert count(store, "series") == 1


def test_an_overlapping_write_logs_the_span_of_what_it_stored_not_of_what_it_was_given(store):
    write_samples(store, frame(counter_rows(HITS, {"pod": "a"}, range(10))))  # scrapes 1-10
    # NOTE: a pull re-reads its last minute: scrapes 6-10 again, and 11-15 new
    assert write_samples(store, frame(counter_rows(HITS, {"pod": "a"}, range(10), first=6))) == 5
    logged = (
        store.cursor().execute("SELECT lo, hi, num_samples FROM sample_writes ORDER BY write_id").fetchall()
    )
    assert logged == [(at(1), at(10), 10), (at(11), at(15), 5)]


def test_a_write_across_the_latest_stored_sample_stores_the_new_points_on_both_sides_once(store):
    write_samples(store, frame(counter_rows(HITS, {"pod": "a"}, range(10))))  # scrapes 1-10
    # NOTE: scrapes 1-10 of a new pod lie before the store's latest sample (the anti-join's side),
    # pod a's 6-10 are stored already and its 11-15 lie after it (stored as they are)
    late = counter_rows(HITS, {"pod": "b"}, range(10))
    again = counter_rows(HITS, {"pod": "a"}, range(10), first=6)
    assert write_samples(store, frame(late + again)) == 15
    stored = (
        store.cursor()
        .execute(
            "SELECT s.labels['pod'], count(*), count(DISTINCT ts), min(ts), max(ts) FROM samples "
            "JOIN series s USING (series_id) GROUP BY 1 ORDER BY 1"
        )
        .fetchall()
    )
    assert stored == [("a", 15, 15, at(1), at(15)), ("b", 10, 10, at(1), at(10))]
    logged = (
        store.cursor().execute("SELECT lo, hi, num_samples FROM sample_writes ORDER BY write_id").fetchall()
    )
    assert logged == [(at(1), at(10), 10), (at(1), at(15), 15)]


@pytest.mark.parametrize("value", [7, ["x"], None], ids=["a number", "a list", "a name"])
def test_a_label_that_is_not_text_is_one_line_and_leaves_the_store_unchanged(store, value):
    write_samples(store, frame(counter_rows(HITS, {"pod": "a"}, [1])))
    labels = {"pod": value} if value is not None else {"pod": "b", 3: "x"}
    with pytest.raises(ValueError, match="labels must map names to strings"):
        write_samples(store, frame([(at(2), HITS, labels, 2.0)]))
    assert count(store, "samples") == 1 and count(store, "series") == 1


def test_label_order_does_not_create_a_second_series(store):
    write_samples(store, frame([(at(1), HITS, {"pod": "a", "model_name": "m"}, 1.0)]))
    write_samples(store, frame([(at(2), HITS, {"model_name": "m", "pod": "a"}, 2.0)]))
    assert count(store, "series") == 1


def test_a_bad_batch_leaves_the_store_unchanged(store):
    write_samples(store, frame(counter_rows(HITS, {"pod": "a"}, [1, 2])))
    bad = frame(counter_rows(HITS, {"pod": "b"}, [1, 2]) + [(at(3), None, {"pod": "b"}, 3.0)])
    with pytest.raises(ValueError, match="no metric name"):
        write_samples(store, bad)
    broken_ts = pd.DataFrame(
        {"ts": ["not a time"], "metric": [HITS], "labels": [{"pod": "c"}], "value": [1.0]}
    )
    with pytest.raises(ValueError, match="column 'ts'"):
        write_samples(store, broken_ts)
    assert count(store, "samples") == 2
    assert count(store, "series") == 1


def test_missing_columns_are_named(store):
    with pytest.raises(ValueError, match="missing column.*value"):
        write_samples(store, pd.DataFrame({"ts": [at(1)], "metric": [HITS], "labels": [{}]}))


def test_read_only_store_refuses_writes(tmp_path):
    path = tmp_path / "s.duckdb"
    open_store(path).close()
    store = open_store(path, read_only=True)
    with pytest.raises(ValueError, match="read-only"):
        write_samples(store, frame(counter_rows(HITS, {"pod": "a"}, [1])))
    store.close()


@pytest.mark.parametrize("name", list_queries())
def test_every_query_file_documents_its_purpose_grain_and_columns(name):
    text = load_query(name).sql
    header = [line for line in text.splitlines() if line.startswith("--")]
    assert header and header[0].startswith(f"-- {name}:"), f"{name}.sql must start with '-- {name}: purpose'"
    assert any("Grain:" in line for line in header), f"{name}.sql header lacks 'Grain:'"
    assert any("Columns:" in line for line in header), f"{name}.sql header lacks 'Columns:'"


def test_unknown_query_names_list_the_available_ones():
    with pytest.raises(ValueError, match="available: .*hit_rate"):
        load_query("no_such_query")
    with pytest.raises(ValueError, match="invalid query name"):
        load_query("../etc/passwd")
