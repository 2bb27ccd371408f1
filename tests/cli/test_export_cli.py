"""`kvscope export --parquet DIR`, then `kvscope query --source DIR` and `kvscope sql --source DIR`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dashboard.cli import main
from tests.sample_store import sample_store

HIT_RATE = ["hit_rate", "--param", "start=2026-11-30T00:00:00Z", "--param", "end=2026-11-30T03:00:00Z"]
HIT_RATE += ["--param", "step=1800", "--format", "json"]


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("export-cli") / "sample.duckdb"
    sample_store(db)
    return db


@pytest.fixture(scope="module")
def exported(sample_db: Path, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("export-cli-out") / "history"
    assert main(["export", "--parquet", str(target), "--db", str(sample_db)]) == 0
    return target


def test_export_reports_the_rows_of_each_table(sample_db, tmp_path, capsys):
    target = tmp_path / "out"
    assert main(["export", "--parquet", str(target), "--db", str(sample_db), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report == {
        "path": str(target),
        "tables": {"series": 480, "samples": 691_200, "requests": 32_076, "annotations": 3},
    }
    assert (target / "samples" / "family=vllm_prefix_cache_hits" / "day=2026-11-30").is_dir()


def test_query_over_the_export_prints_what_query_over_the_store_prints(sample_db, exported, capsys):
    assert main(["query", *HIT_RATE, "--db", str(sample_db)]) == 0
    from_store = json.loads(capsys.readouterr().out)
    assert main(["query", *HIT_RATE, "--source", str(exported)]) == 0
    from_export = json.loads(capsys.readouterr().out)
    assert from_store and from_export == from_store


def test_sql_over_the_export_reads_its_tables_and_nothing_else(exported, tmp_path, capsys):
    assert (
        main(["sql", "SELECT count(*) AS n FROM series", "--source", str(exported), "--format", "json"]) == 0
    )
    assert json.loads(capsys.readouterr().out) == [{"n": 480}]
    (tmp_path / "secret.csv").write_text("a\n1\n")
    code = main(["sql", f"SELECT * FROM read_csv('{tmp_path}/secret.csv')", "--source", str(exported)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "disabled by configuration" in err


def test_export_again_needs_overwrite_and_then_replaces_the_folder(sample_db, exported, capsys):
    code = main(["export", "--parquet", str(exported), "--db", str(sample_db)])
    assert code == 2 and "pass --overwrite" in capsys.readouterr().err
    assert main(["export", "--parquet", str(exported), "--db", str(sample_db), "--overwrite"]) == 0
    assert "691,200 samples" in capsys.readouterr().out


def test_a_damaged_file_in_the_export_is_one_line_naming_it(exported, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(exported, copy)
    damaged = next((copy / "samples" / "family=vllm_prefix_cache_hits").rglob("*.parquet"))
    damaged.write_bytes(b"not parquet")
    code = main(["query", *HIT_RATE, "--source", str(copy)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert f"cannot use store {copy}" in err and str(damaged) in err
