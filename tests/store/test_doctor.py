"""Damaged or busy stores: every command says what is wrong and what to do in one line, nothing is
written to the file, and `kvscope doctor` reports the state and salvages what is readable.

The stores are real DuckDB files: a copy of the loaded sample, held open by another process,
cut short, with bytes overwritten inside the blocks of two tables, or not DuckDB at all.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from dashboard.cli import main
from dashboard.store.db import open_store
from tests.sample_store import sample_store

HEADER_BYTES = 3 * 4096  # DuckDB's file header and two database headers
MOONCAKE = '{"timestamp": 0, "input_length": 1024, "output_length": 8, "hash_ids": [0, 1]}\n'


@pytest.fixture(scope="module")
def healthy_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("doctor") / "sample.duckdb"
    sample_store(db)
    return db


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def damage(path: Path, table: str, column: str) -> None:
    """Overwrite 64 bytes inside the first block holding table.column (its checksum then fails)."""
    con = duckdb.connect(str(path), read_only=True)
    block_size = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    block_id, offset = con.execute(
        f"SELECT block_id, block_offset FROM pragma_storage_info('{table}') "
        f"WHERE column_name = '{column}' AND block_id >= 0 ORDER BY row_group_id LIMIT 1"
    ).fetchone()
    con.close()
    with path.open("r+b") as fh:
        fh.seek(HEADER_BYTES + block_id * block_size + 8 + offset)
        fh.write(b"\xaa" * 64)


def make_store(kind: str, healthy: Path, folder: Path) -> Path:
    """A store file in state kind: healthy, damaged, truncated, cut (catalog lost) or foreign."""
    path = folder / f"{kind}.duckdb"
    if kind == "foreign":
        path.write_text("ts,value\n0,1\n" * 100)
        return path
    shutil.copy(healthy, path)
    if kind == "damaged":
        damage(path, "series", "pod")
        damage(path, "samples", "ts")
    elif kind == "truncated":
        os.truncate(path, path.stat().st_size // 2)
    elif kind == "cut":
        os.truncate(path, 20_000)
    return path


@contextmanager
def held_open(path: Path) -> Iterator[int]:
    """Another process holding the store open for writing (DuckDB's file lock); yields its PID."""
    code = "import duckdb, sys; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); sys.stdin.read()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        yield proc.pid
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


def command_lines(tmp_path: Path, db: Path) -> dict[str, list[str]]:
    trace = tmp_path / "t.jsonl"
    trace.write_text(MOONCAKE)
    grid = tmp_path / "g.toml"
    grid.write_text("hbm_blocks = [4]\n")
    return {
        "query": ["query", "pods", "--db", str(db)],
        "sql": ["sql", "SELECT * FROM series", "--db", str(db)],
        "findings": ["findings", "--db", str(db)],
        "load-sample": ["load-sample", "--db", str(db)],
        "import-trace": ["import-trace", str(trace), "--name", "t", "--db", str(db)],
        "replay": ["replay", str(trace), "--hbm-blocks", "4", "--save", "r", "--db", str(db)],
        "sweep": ["sweep", str(trace), "--grid", str(grid), "--db", str(db), "--workers", "1"],
        "mrc": ["mrc", "stored-trace-name", "--db", str(db)],
    }


ADVICE = {
    "locked": r"is in use by another process \(python[\d.]*, PID {pid}\); stop it .* then try again",
    "damaged": r"is damaged \(checksum mismatch .*\) and was left as it is; run `kvscope doctor --db .* --salvage",
    "truncated": r"is (truncated|damaged).* and was left as it is; run `kvscope doctor --db .* --salvage",
    "foreign": r"is not a DuckDB database file; give the path of a kvscope store",
}


# NOTE: mrc reads only the traces table of a damaged store, whose blocks are intact here.
CASES = [
    (command, kind)
    for command in ("query", "sql", "findings", "load-sample", "import-trace", "replay", "sweep", "mrc")
    for kind in sorted(ADVICE)
    if not (command == "mrc" and kind in ("damaged", "truncated"))
]


@pytest.mark.parametrize(("command", "kind"), CASES)
def test_a_bad_store_is_one_line_with_what_to_do_and_is_left_unchanged(
    healthy_db, tmp_path, capsys, kind, command
):
    db = make_store("healthy" if kind == "locked" else kind, healthy_db, tmp_path)
    argv = command_lines(tmp_path, db)[command]
    before = digest(db)
    with held_open(db) if kind == "locked" else _no_holder() as pid:
        code = main(argv)
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith(f"kvscope {command}: error: "), lines
    assert __import__("re").search(ADVICE[kind].format(pid=pid), lines[0]), lines[0]
    assert "Traceback" not in err
    assert digest(db) == before
    assert not Path(f"{db}.wal").exists()


@contextmanager
def _no_holder() -> Iterator[None]:
    yield None


# --- kvscope doctor -----------------------------------------------------------------------------


def doctor(*args: str) -> tuple[int, str, str]:
    """`kvscope doctor` through its entry point, in this process: (exit code, stdout, stderr)."""
    # NOTE: in this process like the commands above, not a new one each (a Python start costs
    # more than the check); the store is still another process's when a test holds it open.
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["doctor", *args])
    return code, out.getvalue(), err.getvalue()


def test_doctor_reports_a_healthy_store_as_ok_with_every_table(healthy_db):
    code, out, err = doctor("--db", str(healthy_db))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"ok: store {healthy_db} is readable")
    assert any(line.split()[:2] == ["samples", "691,200"] for line in lines)


@pytest.mark.parametrize(
    ("kind", "state"),
    [("damaged", "damaged"), ("truncated", "truncated"), ("cut", "truncated"), ("foreign", "not-duckdb")],
)
def test_doctor_names_the_state_of_a_bad_store_without_writing_it(healthy_db, tmp_path, kind, state):
    db = make_store(kind, healthy_db, tmp_path)
    before = digest(db)
    code, out, err = doctor("--db", str(db), "--json")
    report = json.loads(out)
    assert code == 1 and err == ""
    assert report["state"] == state or (kind == "truncated" and report["state"] == "damaged")
    assert "\n" not in report["message"]
    assert digest(db) == before


def test_doctor_names_a_locked_store_and_its_holder(healthy_db, tmp_path):
    db = make_store("healthy", healthy_db, tmp_path)
    with held_open(db) as pid:
        code, out, _ = doctor("--db", str(db), "--json")
    report = json.loads(out)
    assert code == 1 and report["state"] == "locked" and f"PID {pid}" in report["message"]


def test_doctor_on_a_missing_store_says_how_to_make_one(tmp_path):
    code, out, _ = doctor("--db", str(tmp_path / "none.duckdb"))
    assert code == 1 and out.startswith("missing: no store at") and "kvscope load-sample" in out
    assert not (tmp_path / "none.duckdb").exists()


def test_salvage_copies_every_readable_row_into_a_new_store(healthy_db, tmp_path):
    db = make_store("damaged", healthy_db, tmp_path)
    before = digest(db)
    target = tmp_path / "saved.duckdb"
    code, out, err = doctor("--db", str(db), "--salvage", str(target), "--json")
    result = json.loads(out)["salvage"]
    assert code == 0, err
    tables = {t["name"]: t for t in result["tables"]}
    assert tables["requests"] == {"name": "requests", "num_copied": 32_076, "num_lost": 0}
    assert tables["samples"]["num_lost"] > 0 and tables["samples"]["num_copied"] > 0
    assert digest(db) == before
    code, out, _ = doctor("--db", str(target), "--json")
    assert code == 0 and json.loads(out)["state"] == "ok"


def test_salvage_of_a_healthy_store_keeps_every_row_and_sequences_continue(healthy_db, tmp_path):
    target = tmp_path / "copy.duckdb"
    code, out, err = doctor("--db", str(healthy_db), "--salvage", str(target), "--json")
    assert code == 0, err
    assert json.loads(out)["salvage"]["num_lost"] == 0
    store = open_store(target, read_only=True)
    con = store.cursor()
    max_id = con.execute("SELECT max(series_id) FROM series").fetchone()[0]
    store.close()
    con = duckdb.connect(str(target))
    assert con.execute("SELECT nextval('series_id_seq')").fetchone()[0] > max_id
    con.close()


def test_salvage_of_a_truncated_store_keeps_the_tables_before_the_cut(healthy_db, tmp_path):
    db = make_store("truncated", healthy_db, tmp_path)
    target = tmp_path / "saved.duckdb"
    code, out, err = doctor("--db", str(db), "--salvage", str(target), "--json")
    assert code == 0, err
    result = json.loads(out)["salvage"]
    assert result["num_copied"] > 0
    assert result["num_lost"] is None or result["num_lost"] > 0


def test_salvage_never_overwrites_an_existing_file(healthy_db, tmp_path):
    db = make_store("damaged", healthy_db, tmp_path)
    target = tmp_path / "taken.duckdb"
    target.write_text("mine")
    code, out, err = doctor("--db", str(db), "--salvage", str(target))
    assert code == 2 and out == ""
    assert err.strip() == f"kvscope doctor: error: {target} already exists; name a new file to salvage into"
    assert target.read_text() == "mine"


def test_salvage_of_a_store_whose_catalog_is_lost_makes_no_file(healthy_db, tmp_path):
    db = make_store("cut", healthy_db, tmp_path)
    target = tmp_path / "saved.duckdb"
    code, out, err = doctor("--db", str(db), "--salvage", str(target))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "nothing in" in err and "restore a backup" in err
    assert not target.exists() and not Path(f"{target}.wal").exists()
