"""$KVSCOPE_DUCKDB_THREADS caps DuckDB's worker threads on every connection kvscope opens; a bad
value is one line naming the variable, before any store is opened or made."""

from __future__ import annotations

import duckdb
import pytest

from dashboard.cli import main
from dashboard.core.config import THREADS_ENV_VAR
from dashboard.store.console import run_sql
from dashboard.store.db import open_store
from dashboard.store.health import inspect_store


def threads_of(connection) -> int:
    return int(connection.execute("SELECT current_setting('threads')").fetchone()[0])


@pytest.mark.parametrize("threads", [1, 3])
def test_every_connection_kvscope_opens_has_the_threads_asked_for(tmp_path, monkeypatch, threads):
    monkeypatch.setenv(THREADS_ENV_VAR, str(threads))
    path = tmp_path / "store.duckdb"
    store = open_store(path)
    try:
        assert threads_of(store.connection) == threads
    finally:
        store.close()
    read_only = open_store(path, read_only=True)
    try:
        assert threads_of(read_only.connection) == threads
    finally:
        read_only.close()
    console = run_sql(path, "SELECT current_setting('threads') AS threads")
    assert console.frame["threads"].tolist() == [threads]
    assert inspect_store(path).state == "ok"


def test_unset_leaves_duckdbs_own_default(tmp_path, monkeypatch):
    monkeypatch.delenv(THREADS_ENV_VAR, raising=False)
    store, plain = open_store(tmp_path / "store.duckdb"), duckdb.connect(":memory:")
    try:
        assert threads_of(store.connection) == threads_of(plain)
    finally:
        store.close()
        plain.close()


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_a_bad_value_is_one_line_naming_the_variable_and_makes_no_store(tmp_path, monkeypatch, capsys, value):
    monkeypatch.setenv(THREADS_ENV_VAR, value)
    path = tmp_path / "new.duckdb"
    assert main(["load-sample", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and THREADS_ENV_VAR in err and "positive whole number" in err, err
    assert not path.exists()
