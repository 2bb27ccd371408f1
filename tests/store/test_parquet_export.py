"""History as Parquet: the sample store exported, read back as a source, and read by plain DuckDB."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest

from dashboard.store.console import run_sql
from dashboard.store.db import Store, open_store
from dashboard.store.parquet import MANIFEST, export_parquet, open_parquet_source
from dashboard.store.queries import list_queries, load_query, run_query
from tests.sample_store import sample_store

# Values for the queries' required parameters (start and end come from the store's own bounds).
PARAM_VALUES = {
    "step": 1800.0,
    "names": ["vllm:prefix_cache_hits_total"],
    "q": [0.5, 0.9, 0.99],
    "run_id": 1,
    "run_name": "none",
    "trace_name": "none",
}


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("parquet") / "sample.duckdb"
    sample_store(db)
    return db


@pytest.fixture(scope="module")
def exported(sample_db: Path, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("export") / "history"
    store = open_store(sample_db, read_only=True)
    try:
        export_parquet(store, target)
    finally:
        store.close()
    return target


@pytest.fixture(scope="module")
def stores(sample_db: Path, exported: Path):
    store = open_store(sample_db, read_only=True)
    source = open_parquet_source(str(exported))
    yield store, source
    source.close()
    store.close()


def params_for(store: Store, name: str) -> dict:
    bounds = run_query(store, "time_bounds").iloc[0]
    values = {"start": bounds.first_ts, "end": bounds.last_ts, **PARAM_VALUES}
    return {
        p.name: values[p.name] for p in load_query(name).params if p.catalog_key is None and p.name in values
    }


def comparable(frame: pd.DataFrame) -> pd.DataFrame:
    """frame with list and map cells as text and rows in one order, so two answers can be compared."""

    def cell(v):
        if isinstance(v, np.ndarray):
            return repr(v.tolist())
        return repr(v) if isinstance(v, (list, dict, tuple)) else v

    out = frame.apply(lambda col: col.map(cell) if col.dtype == object else col)
    key = out.apply(lambda row: tuple(f"{v:.9g}" if isinstance(v, float) else str(v) for v in row), axis=1)
    return out.iloc[sorted(range(len(out)), key=lambda i: key.iloc[i])].reset_index(drop=True)


@pytest.mark.parametrize("name", list_queries())
def test_every_read_query_answers_the_same_over_the_export_as_over_the_store(stores, name):
    store, source = stores
    params = params_for(store, name)
    expected = run_query(store, name, **params)
    actual = run_query(source, name, **params)
    assert list(actual.columns) == list(expected.columns)
    pd.testing.assert_frame_equal(comparable(actual), comparable(expected), check_exact=False, rtol=1e-9)


def test_the_round_trip_compares_real_answers_not_empty_ones(stores):
    store, source = stores
    for name in ("hit_rate", "ttft_quantiles", "annotations", "observed_requests", "overview_routing"):
        assert len(run_query(source, name, **params_for(store, name))) > 0, name
    assert (
        run_query(source, "store_counts").iloc[0].to_dict()
        == run_query(store, "store_counts").iloc[0].to_dict()
    )


def test_the_layout_is_hive_partitioned_by_family_and_day(exported, stores):
    store, _ = stores
    samples = sorted(
        p.relative_to(exported / "samples").parent for p in (exported / "samples").rglob("*.parquet")
    )
    assert samples and all(
        re.fullmatch(r"family=[A-Za-z0-9_]+/day=\d{4}-\d{2}-\d{2}", str(p)) for p in samples
    )
    assert Path("family=vllm_prefix_cache_hits/day=2026-11-30") in samples
    assert Path("family=vllm_time_to_first_token_seconds/day=2026-11-30") in samples  # bucket, sum and count
    for table, pattern in (
        ("series", r"family=[A-Za-z0-9_]+"),
        ("requests", r"day=[\d-]+"),
        ("annotations", r"day=[\d-]+"),
    ):
        folders = {p.relative_to(exported / table).parent for p in (exported / table).rglob("*.parquet")}
        assert folders and all(re.fullmatch(pattern, str(p)) for p in folders), table
    manifest = json.loads((exported / MANIFEST).read_text())
    counts = run_query(store, "store_counts").iloc[0]
    assert manifest["tables"] == {
        "series": counts.num_series,
        "samples": counts.num_samples,
        "requests": counts.num_requests,
        "annotations": counts.num_annotations,
    }


def test_a_plain_duckdb_reads_the_export_without_kvscope(exported, stores):
    store, _ = stores
    samples = duckdb.read_parquet(str(exported / "samples" / "**" / "*.parquet"), hive_partitioning=True)
    assert {"series_id", "ts", "value", "family", "day"} <= set(samples.columns)
    assert samples.count("*").fetchall()[0][0] == run_query(store, "store_counts").iloc[0].num_samples
    # An outside reader joins on (series_id, family) and prunes by family and day.
    conn = duckdb.connect()
    total = conn.execute(
        f"""SELECT sum(x.value) FROM read_parquet('{exported}/samples/*/*/*.parquet', hive_partitioning = true) x
            JOIN read_parquet('{exported}/series/*/*.parquet', hive_partitioning = true) s
            USING (series_id, family)
            WHERE x.family = 'vllm_prefix_cache_hits' AND x.day = DATE '2026-11-30'
              AND s.metric = 'vllm:prefix_cache_hits_total'"""
    ).fetchone()[0]
    with duckdb.connect(str(store.path), read_only=True) as db:
        expected = db.execute(
            """SELECT sum(x.value) FROM samples x JOIN series s USING (series_id)
               WHERE s.metric = 'vllm:prefix_cache_hits_total'"""
        ).fetchone()[0]
    assert total == pytest.approx(expected, rel=1e-12) and expected > 0
    # A second reader that is not DuckDB at all: pyarrow's dataset discovery of Hive folders.
    dataset = ds.dataset(exported / "samples", format="parquet", partitioning="hive")
    assert {"family", "day"} <= set(dataset.schema.names)
    assert dataset.count_rows(filter=pc.field("family") == "vllm_prefix_cache_hits") > 0
    assert dataset.count_rows() == run_query(store, "store_counts").iloc[0].num_samples


def tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def test_the_source_is_read_only(exported):
    before = tree_digest(exported)
    source = open_parquet_source(str(exported))
    try:
        assert source.read_only
        with pytest.raises(ValueError, match="read-only"), source.transaction():
            pass
        with pytest.raises(duckdb.Error):
            source.cursor().execute("INSERT INTO samples VALUES (1, TIMESTAMP '2026-01-01', 1.0)")
    finally:
        source.close()
    assert tree_digest(exported) == before


def test_the_console_over_the_source_reads_only_the_export(exported, tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n1\n")
    assert run_sql(str(exported), "SELECT count(*) AS n FROM samples").frame.n[0] == 691_200
    # The export's own files are the views' input, so they stay readable; nothing else does.
    for sql in (
        f"SELECT * FROM read_csv('{secret}')",
        f"SELECT * FROM glob('{exported.parent}/*')",
        f"SELECT * FROM read_text('{exported}/../secret.csv')",
    ):
        with pytest.raises(ValueError, match="disabled by configuration"):
            run_sql(str(exported), sql)
    for sql in (
        "DROP VIEW samples",
        f"COPY samples TO '{tmp_path}/out.parquet'",
        "SET enable_external_access = true",
    ):
        with pytest.raises(ValueError, match="read-only"):
            run_sql(str(exported), sql)
    assert not (tmp_path / "out.parquet").exists()


def test_a_glob_naming_one_export_is_a_source(exported):
    source = open_parquet_source(str(exported.parent / "hist*"))
    try:
        assert run_query(source, "time_bounds").iloc[0].num_samples == 691_200
    finally:
        source.close()


def not_an_export(folder: Path, kind: str) -> Path:
    """A path that is no export: missing, a file, or an empty folder."""
    path = folder / kind
    if kind == "file.parquet":
        path.write_bytes(b"not parquet")
    elif kind == "empty":
        path.mkdir()
    return path


@pytest.mark.parametrize(
    "kind, message",
    [
        ("absent", r"absent does not exist"),
        ("file.parquet", r"file\.parquet is a file; give the folder"),
        ("empty", r"empty is not a kvscope Parquet export: no Parquet files under series/"),
    ],
)
def test_a_source_that_is_not_an_export_is_one_line(tmp_path, kind, message):
    with pytest.raises(ValueError) as info:
        open_parquet_source(str(not_an_export(tmp_path, kind)))
    assert "\n" not in str(info.value) and re.search(message, str(info.value)), info.value


def test_an_export_missing_its_samples_is_refused(exported, tmp_path):
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "series").symlink_to(exported / "series")
    with pytest.raises(ValueError, match="no Parquet files under samples/"):
        open_parquet_source(str(partial))


def test_export_refuses_a_non_empty_folder_and_overwrites_only_an_earlier_export(
    sample_db, exported, tmp_path
):
    store = open_store(sample_db, read_only=True)
    try:
        other = tmp_path / "other"
        other.mkdir()
        (other / "notes.txt").write_text("mine")
        with pytest.raises(ValueError, match="is not empty; pass --overwrite"):
            export_parquet(store, other)
        with pytest.raises(ValueError, match="not a kvscope export"):
            export_parquet(store, other, overwrite=True)
        assert (other / "notes.txt").read_text() == "mine"

        again = tmp_path / "again"
        again.mkdir()  # an empty folder takes an export as a new one does
        export_parquet(store, again)
        (again / "samples" / "stale.parquet").write_bytes(b"left from before")
        export_parquet(store, again, overwrite=True)
        assert not (again / "samples" / "stale.parquet").exists()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["again", "other"]  # no partial or old folders
    finally:
        store.close()


def test_an_empty_store_is_not_exported(store, tmp_path):
    with pytest.raises(ValueError, match="holds no metric samples"):
        export_parquet(store, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]
