"""Series are keyed without collisions, and stores keyed the old way keep matching after
migration 007 (issue 14, item 4)."""

from __future__ import annotations

from pathlib import Path

from dashboard.store.db import SCHEMA_DIR, Store, open_store
from dashboard.store.writes import write_samples
from tests.store.helpers import counter_rows, frame, store_at_version

QUERIES = "vllm:prefix_cache_queries_total"
LOOKALIKES = [{"pod": "a", "engine": "a,namespace=b"}, {"pod": "a", "engine": "a", "namespace": "b"}]
ODD = {"pod": "b", "model": 'say "hi"\\', "é": "模型"}


def old_series_key(metric: str, labels: dict[str, str]) -> str:
    """The key kvscope wrote before migration 007: `metric{k=v,…}`, texts sorted, nothing escaped."""
    return metric + "{" + ",".join(sorted(f"{k}={v}" for k, v in labels.items())) + "}"


def store_before_007(path: Path) -> Store:
    """A store migrated to 006 whose series rows carry old-format keys, as a pre-007 kvscope left it."""
    store = store_at_version(path, 6)
    cur = store.cursor()
    for i, labels in enumerate([LOOKALIKES[0], ODD], start=1):
        cur.execute(
            "INSERT INTO series (series_key, metric, labels, pod, le) VALUES (?, ?, ?, ?, NULL)",
            [old_series_key(QUERIES, labels), QUERIES, dict(sorted(labels.items())), labels["pod"]],
        )
        cur.execute("INSERT INTO samples VALUES (?, TIMESTAMP '2026-01-01 00:00:15', ?)", [i, 10.0 * i])
    return store


def series_rows(store: Store) -> list[tuple]:
    return store.cursor().execute("SELECT series_id, series_key FROM series ORDER BY series_id").fetchall()


def test_label_sets_that_join_to_one_text_are_two_series(store):
    write_samples(
        store,
        frame(counter_rows(QUERIES, LOOKALIKES[0], [1, 2]) + counter_rows(QUERIES, LOOKALIKES[1], [5, 6])),
    )
    stored = store.cursor().execute(
        "SELECT labels['engine'], list_sort(list(value)) FROM samples JOIN series USING (series_id) GROUP BY ALL ORDER BY 1"
    )
    assert stored.fetchall() == [("a", [5.0, 6.0]), ("a,namespace=b", [1.0, 2.0])]


def test_a_store_keyed_the_old_way_keeps_its_series_after_migrating(tmp_path):
    db = tmp_path / "old.duckdb"
    store_before_007(db).close()
    store = open_store(db)  # applies 007 (and later migrations)
    try:
        before = series_rows(store)
        # The same two series written again land on their stored ids; only the look-alike is new.
        rows = counter_rows(QUERIES, LOOKALIKES[0], [20]) + counter_rows(QUERIES, ODD, [30])
        rows += counter_rows(QUERIES, LOOKALIKES[1], [40])
        write_samples(store, frame(rows))
        after = series_rows(store)
    finally:
        store.close()
    assert [sid for sid, _ in before] == [1, 2]
    assert after[:2] == before and len(after) == 3
    assert before[0][1] == '"vllm:prefix_cache_queries_total"{"engine":"a,namespace=b","pod":"a"}'
    assert (
        before[1][1] == '"vllm:prefix_cache_queries_total"{"model":"say \\"hi\\"\\\\","pod":"b","é":"模型"}'
    )


def test_migration_007_changes_nothing_the_second_time(tmp_path):
    db = tmp_path / "old.duckdb"
    store_before_007(db).close()
    store = open_store(db)
    try:
        first = series_rows(store)
        store.cursor().execute((SCHEMA_DIR / "007_series_keys.sql").read_text())
        assert series_rows(store) == first
    finally:
        store.close()


def test_keys_written_by_python_equal_the_ones_the_migration_computes(store):
    write_samples(
        store,
        frame(counter_rows(QUERIES, ODD, [1]) + counter_rows(QUERIES, {"b": "1", "B": "2", "a": ""}, [1])),
    )
    written = series_rows(store)
    store.cursor().execute("UPDATE series SET series_key = 'stale ' || series_id")
    store.cursor().execute((SCHEMA_DIR / "007_series_keys.sql").read_text())
    assert series_rows(store) == written
