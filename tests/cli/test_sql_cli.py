"""`kvscope sql` runs one read-only SELECT; anything else is one line on stderr and exit 2."""

from __future__ import annotations

import csv
import io
import json

from dashboard.cli import main
from tests.store.test_sql_console import db  # noqa: F401 (pytest fixture)


def test_sql_prints_rows_as_json(db, capsys):  # noqa: F811
    code = main(["sql", "SELECT name, num_requests FROM traces", "--db", str(db), "--format", "json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out) == [{"name": "tiny", "num_requests": 2}]


def test_sql_csv_has_a_header_and_one_line_per_row(db, capsys):  # noqa: F811
    code = main(
        [
            "sql",
            "SELECT idx, input_tokens FROM trace_requests ORDER BY idx",
            "--db",
            str(db),
            "--format",
            "csv",
        ]
    )
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert code == 0
    assert rows == [["idx", "input_tokens"], ["0", "600"], ["1", "700"]]


def test_sql_table_is_the_default_format(db, capsys):  # noqa: F811
    assert main(["sql", "SELECT 42 AS answer", "--db", str(db)]) == 0
    assert capsys.readouterr().out.split() == ["answer", "42"]


def test_sql_refusing_a_write_is_one_line_and_exit_2(db, capsys):  # noqa: F811
    code = main(["sql", "DELETE FROM traces", "--db", str(db)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith(
        "kvscope sql: error: the console is read-only"
    )


def test_sql_with_a_syntax_error_is_one_line_and_exit_2(db, capsys):  # noqa: F811
    code = main(["sql", "SELEC name FROM traces", "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "syntax error" in err


def test_sql_refuses_reading_a_file(db, capsys):  # noqa: F811
    code = main(["sql", "SELECT * FROM read_csv('/etc/passwd')", "--db", str(db), "--format", "csv"])
    captured = capsys.readouterr()
    assert code == 2 and "root" not in captured.out and "disabled" in captured.err


def test_sql_cuts_rows_at_max_rows_and_notes_it_on_stderr(db, capsys):  # noqa: F811
    code = main(["sql", "SELECT * FROM range(10)", "--db", str(db), "--format", "json", "--max-rows", "3"])
    captured = capsys.readouterr()
    assert code == 0 and len(json.loads(captured.out)) == 3
    assert "first 3 rows" in captured.err


def test_sql_past_its_timeout_is_interrupted_with_one_line(db, capsys):  # noqa: F811
    code = main(
        [
            "sql",
            "SELECT sum(a.range * b.range) FROM range(200000) a, range(200000) b",
            "--db",
            str(db),
            "--timeout",
            "0.3",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "time limit" in err


def test_sql_on_a_missing_store_exits_2_and_creates_nothing(tmp_path, capsys):
    missing = tmp_path / "none.duckdb"
    assert main(["sql", "SELECT 1", "--db", str(missing)]) == 2
    assert "does not exist" in capsys.readouterr().err and not missing.exists()
