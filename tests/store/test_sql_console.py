"""The read-only SQL console: SELECTs run; writes, files, network, extensions and settings are refused."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from dashboard.services.traces import import_trace
from dashboard.store.console import _open_locked, run_sql
from dashboard.store.db import open_store
from tests.sample_store import copy_of

TINY = (
    '{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, 1]}\n'
    '{"timestamp": 1000, "input_length": 700, "output_length": 5, "hash_ids": [0, 1, 2]}\n'
)


def build_tiny(path: Path) -> None:
    trace = path.with_suffix(".jsonl")
    trace.write_text(TINY)
    store = open_store(path)
    import_trace(store, trace, "mooncake", "tiny")
    store.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store file holding one two-request trace named 'tiny'; closed, as the CLI finds it."""
    return copy_of("tiny-trace", build_tiny, tmp_path / "kvscope.duckdb")


def num_traces(db: Path) -> int:
    with duckdb.connect(str(db), read_only=True) as conn:
        return conn.execute("SELECT count(*) FROM traces").fetchone()[0]


def refusal(db: Path, sql: str) -> str:
    with pytest.raises(ValueError) as info:
        run_sql(db, sql)
    message = str(info.value)
    assert "\n" not in message, message
    return message


def test_console_runs_a_select_over_the_stored_traces(db):
    result = run_sql(db, "SELECT name, num_requests FROM traces")
    assert result.frame.to_dict("records") == [{"name": "tiny", "num_requests": 2}]
    assert not result.is_truncated


def test_console_caps_rows_and_says_it_cut_them(db):
    result = run_sql(db, "SELECT * FROM range(100)", max_rows=7)
    assert len(result.frame) == 7
    assert result.is_truncated


def test_console_keeps_a_result_exactly_at_the_cap_whole(db):
    result = run_sql(db, "SELECT * FROM range(7)", max_rows=7)
    assert len(result.frame) == 7 and not result.is_truncated


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO traces (trace_id, name) VALUES (99, 'x')",
        "UPDATE traces SET name = 'renamed'",
        "DELETE FROM trace_requests",
        "CREATE TABLE memory.main.scratch AS SELECT 1",
        "CREATE TEMP TABLE scratch AS SELECT 1",
        "DROP TABLE traces",
        "ALTER TABLE traces RENAME TO t2",
    ],
)
def test_console_refuses_writes_and_leaves_the_store_as_it_was(db, sql):
    assert "read-only" in refusal(db, sql)
    assert num_traces(db) == 1


def test_console_refuses_copy_to_a_file(db, tmp_path):
    out = tmp_path / "out.csv"
    refusal(db, f"COPY traces TO '{out}'")
    assert not out.exists()


def test_console_refuses_attach(db, tmp_path):
    refusal(db, f"ATTACH '{tmp_path / 'other.duckdb'}' AS other")
    assert not (tmp_path / "other.duckdb").exists()


@pytest.mark.parametrize("sql", ["INSTALL httpfs", "LOAD httpfs", "LOAD '/tmp/evil.duckdb_extension'"])
def test_console_refuses_installing_or_loading_extensions(db, sql):
    refusal(db, sql)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_csv_auto('/etc/passwd')",
        "SELECT * FROM read_parquet('/etc/passwd')",
        "SELECT * FROM read_json('/etc/passwd')",
        "SELECT * FROM read_text('/etc/passwd')",
        "SELECT * FROM read_blob('/etc/passwd')",
        "SELECT * FROM glob('/etc/*')",
        "SELECT * FROM sniff_csv('/etc/passwd')",
        "SELECT * FROM 'https://example.com/data.csv'",
        "SELECT * FROM read_parquet('s3://bucket/data.parquet')",
        "SELECT * FROM read_json('http://127.0.0.1:1/x.json')",
    ],
)
def test_console_refuses_reading_files_or_urls_from_a_select(db, sql):
    message = refusal(db, sql)
    assert "root:" not in message and "disabled" in message


@pytest.mark.parametrize(
    "sql",
    [
        "SET enable_external_access = true",
        "SET lock_configuration = false",
        "RESET enable_external_access",
        "SET threads = 1",
        "PRAGMA threads = 1",
        "PRAGMA enable_profiling",
        "USE memory",
    ],
)
def test_console_refuses_statements_that_change_settings(db, sql):
    refusal(db, sql)


@pytest.mark.parametrize(
    "sql",
    [
        "SET enable_external_access = true",
        "SET autoload_known_extensions = true",
        "SET allowed_directories = ['/']",
        "RESET lock_configuration",
    ],
)
def test_console_connection_itself_locks_its_configuration(db, sql):
    conn = _open_locked(db)
    try:
        with pytest.raises(duckdb.Error, match="locked"):
            conn.execute(sql)
    finally:
        conn.close()


def test_console_connection_has_external_access_and_extension_autoload_off(db):
    conn = _open_locked(db)
    try:
        settings = dict(
            conn.execute(
                "SELECT name, value FROM duckdb_settings() WHERE name IN ('enable_external_access', "
                "'autoinstall_known_extensions', 'autoload_known_extensions', 'allow_community_extensions', "
                "'lock_configuration', 'allowed_directories', 'allowed_paths')"
            ).fetchall()
        )
    finally:
        conn.close()
    assert settings["enable_external_access"] == "false"
    assert settings["autoinstall_known_extensions"] == "false"
    assert settings["autoload_known_extensions"] == "false"
    assert settings["allow_community_extensions"] == "false"
    assert settings["lock_configuration"] == "true"
    assert settings["allowed_directories"] == "[]"  # NOTE: not even DuckDB's ./.tmp spill directory
    allowed = settings["allowed_paths"].strip("[]").split(", ")
    assert all(p.startswith(str(db)) for p in allowed), allowed  # only the store's own file and WAL


def test_console_cannot_reach_files_in_duckdbs_spill_directory(db, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tmp").mkdir()
    (tmp_path / ".tmp" / "secret.csv").write_text("password\nhunter2\n")
    assert "disabled" in refusal(db, "SELECT * FROM read_csv('.tmp/secret.csv')")
    refusal(db, "COPY (SELECT 1) TO '.tmp/written.csv'")
    assert not (tmp_path / ".tmp" / "written.csv").exists()


def test_console_runs_one_statement_only(db):
    assert "exactly one statement" in refusal(db, "SELECT 1; DROP TABLE traces")
    assert num_traces(db) == 1


def test_console_interrupts_a_query_past_its_time_limit(db):
    with pytest.raises(ValueError, match="time limit") as info:
        run_sql(db, "SELECT sum(a.range * b.range) FROM range(200000) a, range(200000) b", timeout_s=0.3)
    assert "\n" not in str(info.value)


def test_console_errors_are_one_line_without_duckdbs_caret_context(db):
    message = refusal(db, "SELECT nope FROM traces")
    assert message.startswith("Binder Error") and "LINE" not in message


def test_console_on_a_missing_store_says_so_and_creates_nothing(tmp_path):
    missing = tmp_path / "none.duckdb"
    assert "does not exist" in refusal(missing, "SELECT 1")
    assert not missing.exists()


def test_console_refuses_a_store_that_this_process_holds_for_writing(db):
    writer = open_store(db)
    try:
        assert "open for writing" in refusal(db, "SELECT 1")
    finally:
        writer.close()


def test_console_reads_a_store_this_process_holds_read_only(db):
    reader = open_store(db, read_only=True)
    try:
        assert run_sql(db, "SELECT count(*) AS n FROM trace_requests").frame["n"].tolist() == [2]
    finally:
        reader.close()
