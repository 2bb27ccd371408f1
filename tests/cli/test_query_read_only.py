"""`kvscope query` lists and runs only the top-level read queries; none opens a file from a parameter."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.core.config import QUERIES_DIR
from dashboard.store.db import open_store
from dashboard.store.queries import list_queries, load_query, load_read_query, opens_files, run_query

NOT_READ_QUERIES = sorted(
    f"{p.parent.name}/{p.stem}" for p in QUERIES_DIR.glob("*/*.sql") if p.parent.name != "schema"
) + ["schema/001_init", "../queries/hit_rate", "write", ""]


def test_query_list_names_exactly_the_top_level_files(capsys):
    assert main(["query", "--list"]) == 0
    names = capsys.readouterr().out.split()
    assert names == sorted(p.stem for p in QUERIES_DIR.glob("*.sql"))
    assert all("/" not in n for n in names)


@pytest.mark.parametrize("name", NOT_READ_QUERIES)
def test_run_query_refuses_every_write_schema_and_doctor_statement(store, name):
    with pytest.raises(ValueError, match="unknown query"):
        run_query(store, name)


def test_query_command_does_not_read_a_file_named_by_a_parameter(store, tmp_path, capsys):
    secret = tmp_path / "answer.json"
    secret.write_text('{"data": {"result": [{"metric": {"x": "secret"}, "values": [[1, "2"]]}]}}')
    db = store.path
    store.close()
    before = hashlib.sha256(Path(db).read_bytes()).hexdigest()
    code = main(["query", "write/query_result_read", "--db", str(db), "--param", f"path={secret}"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.splitlines() == [err.strip()] and "unknown query 'write/query_result_read'" in err
    assert "secret" not in err
    assert hashlib.sha256(Path(db).read_bytes()).hexdigest() == before


@pytest.mark.parametrize("name", list_queries())
def test_no_read_query_hands_a_parameter_to_a_file_reader(name):
    query = load_read_query(name)
    assert not opens_files(query.sql), f"{name}.sql reads a file named by a parameter"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_json($path)",
        "SELECT * FROM read_parquet( CAST($p AS VARCHAR[]) )",
        "SELECT * FROM parquet_scan($p)",
        "SELECT * FROM glob($pattern)",
        "SELECT * FROM query_table($t)",
        "SELECT * FROM sniff_csv($f)",
        "ATTACH 'x.duckdb' AS other",
        "COPY samples TO 'out.csv'",
    ],
)
def test_the_file_reader_check_catches_each_way_to_open_a_file(sql):
    assert opens_files(sql)


def test_no_statement_of_kvscope_reads_a_file_named_by_a_parameter():
    # NOTE: Prometheus answers are parsed by ingest (matrix_answer.py); only the doctor attaches a
    # file, the damaged store it was pointed at, and only `kvscope export` copies to files, the
    # folder it was given (both spliced in as quoted literals by the store layer, never a
    # parameter); `kvscope query` can run neither.
    for path in sorted(QUERIES_DIR.rglob("*.sql")):
        name = str(path.relative_to(QUERIES_DIR).with_suffix(""))
        assert name.startswith(("schema/", "doctor/", "export/")) or not opens_files(load_query(name).sql), (
            name
        )


def test_a_plain_select_is_not_taken_for_a_file_reader():
    assert not opens_files("SELECT read_count, query_id FROM t WHERE name = $name -- read_json($x)")


def test_read_queries_still_run_through_run_query(store):
    db = store.path
    store.close()
    ro = open_store(db, read_only=True)
    try:
        assert list(run_query(ro, "pods").columns) == ["pod"]
    finally:
        ro.close()
