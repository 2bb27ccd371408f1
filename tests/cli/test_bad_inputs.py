"""The one-line contract, for every subcommand: bad input prints one line on stderr that names
what and where, nothing on stdout, no usage block, no traceback, exit 2, and no file is made
or changed. One table; a subcommand without a row fails test_every_subcommand_has_a_row.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard.cli import command_modules, main
from dashboard.commands import _common
from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.services.sample import write_sample
from tests.sample_store import sample_store

MOONCAKE = [
    {"timestamp": 1000 * i, "input_length": 1024, "output_length": 8, "hash_ids": [0, 1 + i % 3]}
    for i in range(12)
]


@dataclass(frozen=True)
class Row:
    """A command line (shell words, with {placeholders}), a regex the one stderr line must match, paths that must not appear."""

    line: str
    pattern: str
    absent: tuple[str, ...] = ()

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.line)

    @property
    def command(self) -> str:
        return self.argv[0] if self.argv else ""


ROWS = [
    # collect (only its shared contract; the collect engineer owns its own rows)
    Row("collect --scrape http://127.0.0.1:9/metrics --once --since soon --db {new}", "soon"),
    # doctor
    Row("doctor --db {db} --salvage {db}", "already exists; name a new file"),
    Row("doctor --db {db} --salvage {tmp}/nodir/x.duckdb", "nodir is not a folder", ("{tmp}/nodir",)),
    Row("doctor --db {tmp}/nodir/x.duckdb", r"--db .*x\.duckdb: folder .*nodir does not exist"),
    # export
    Row("export --db {db}", "the following arguments are required: --parquet"),
    Row("export --parquet {trace} --db {db}", r"--parquet .*trace\.jsonl: is a file; give a folder"),
    Row(
        "export --parquet {tmp}/nodir/out --db {db}",
        r"--parquet .*out: folder .*nodir does not exist; create it first",
        ("{tmp}/nodir",),
    ),
    Row("export --parquet {tmp} --db {db}", r"is not empty; pass --overwrite"),
    Row("export --parquet {tmp} --db {db} --overwrite", r"not a kvscope export \(no _kvscope_export\.json\)"),
    Row("export --parquet {tmp}/out --db {new}", r"new\.duckdb does not exist", ("{new}", "{tmp}/out")),
    # findings
    Row("findings --db {db} --since soon", "soon"),
    Row("findings --db {new}", r"new\.duckdb does not exist", ("{new}",)),
    # import-trace
    Row(
        "import-trace {tmp}/nothere.jsonl --name x --db {new}",
        r"nothere\.jsonl: no such trace file$",
        ("{new}",),
    ),
    Row("import-trace {tmp} --name x --db {new}", ": is a directory, not a trace file", ("{new}",)),
    Row(
        "import-trace {trace} --name x --block-tokens 0 --db {new}",
        "--block-tokens must be positive",
        ("{new}",),
    ),
    # load-sample
    Row(
        "load-sample --db {tmp}/nodir/x.duckdb",
        r"--db .*nodir/x\.duckdb: folder .*nodir does not exist; create it first",
        ("{tmp}/nodir",),
    ),
    Row("load-sample --db {new} --dir {tmp}/empty", r"metrics\.parquet: missing \(docs/sim\.md", ("{new}",)),
    Row("load-sample --db {new} --dir {tmp}/nothere", "nothere: no such folder", ("{new}",)),
    Row("load-sample --db {new} --dir {tmp}/badsample", r"annotations\.parquet: column 'ts'", ("{new}",)),
    # mrc
    Row("mrc {trace} --capacities -5,100", "--capacities -5,100: a capacity cannot be negative, got -5"),
    Row("mrc {trace} --capacities ten", "--capacities ten: expected comma-separated whole numbers"),
    Row("mrc {trace} --workers 0 --policy fifo", "--workers must be at least 1, got 0"),
    Row("mrc {trace} --workers x", "argument --workers: invalid int value: 'x'"),
    Row("mrc {trace} --policy nope", "unknown policy 'nope'"),
    # plan
    Row("plan --trace {trace} --target hit", "--target 'hit': expected one of"),
    Row("plan --trace {trace} --max-pods 0", "--max-pods must be at least 1"),
    Row(
        "plan --trace {trace} --policies lru", "--policies: 'lru' is not another eviction policy; known: fifo"
    ),
    Row("plan --trace {trace} --policies arc arc", "--policies: arc arc names a policy twice"),
    # query
    Row(
        "query hit_rate --db {db} --param start={start} --param end={end} --param step=-5",
        "step=-5 must be a positive number of seconds",
    ),
    Row(
        "query hit_rate --db {db} --param start={end} --param end={start} --param step=60",
        "parameter end=.* is before start=",
    ),
    Row(
        "query ttft_quantiles --db {db} --param start={start} --param end={end} --param step=60 --param q=1.5",
        r"q=1\.5 must be a quantile from 0 to 1",
    ),
    Row(
        "query hit_rate --db {db} --param start=soon --param end={end} --param step=60",
        "parameter start='soon' is not a TIMESTAMP",
    ),
    Row(
        "query write/query_result_read --db {db} --param path={tmp}/answer.json",
        "unknown query 'write/query_result_read'",
    ),
    Row("query write/series_ids --db {db}", "unknown query 'write/series_ids'"),
    Row("query schema/create_samples --db {db}", "unknown query 'schema/create_samples'"),
    Row("query --db {db}", r"name a query \(one of: .*hit_rate"),
    Row("query time_bounds --source {tmp}/nothere", r"Parquet source .*nothere does not exist"),
    Row("query time_bounds --source {db}", r"sample\.duckdb is a file; give the folder"),
    Row("query time_bounds --source {tmp}/empty", r"empty is not a kvscope Parquet export"),
    Row("query time_bounds --source {tmp}/empty --db {db}", "--source and --db name two stores; give one"),
    # replay
    Row("replay {trace} --hbm-blocks -1", "--hbm-blocks must be non-negative, got -1"),
    Row("replay {trace} --hbm-blocks 10 --pods 0", "--pods must be at least 1, got 0"),
    Row("replay {trace} --hbm-blocks 10 --save ' '", "--save needs a non-empty name"),
    Row(
        "replay {trace} --hbm-blocks 10 --save x --db {tmp}/nodir/x.duckdb",
        "folder .*nodir does not exist",
        ("{tmp}/nodir",),
    ),
    Row("replay", "the following arguments are required: trace"),
    Row("replay {tmp}/huge.jsonl --hbm-blocks 10", r"huge\.jsonl:1: field 'input_length'"),
    # rules
    Row("rules --hit-rate-drop 2", r"--hit-rate-drop 2\.0: expected a share between 0 and 1"),
    Row("rules --window soon", "soon"),
    # sample
    Row("sample --hours 0 --out {tmp}/s", "--hours must be between", ("{tmp}/s",)),
    Row("warmup --force {tmp}/extra", "unrecognized arguments: .*extra"),
    Row("sample --out {trace}", r"--out .*trace\.jsonl: is a file; give a folder"),
    # serve-sim
    Row("serve-sim --port 99999", "--port 99999: .* ports run from 1 to 65535"),
    Row(
        "serve-sim --scrape-interval soon --prometheus-config {tmp}/p.yml",
        "--scrape-interval 'soon'",
        ("{tmp}/p.yml",),
    ),
    Row("serve-sim --pods 0", "--pods must be at least 1, got 0"),
    Row("serve-sim --speed -1", "--speed must be a positive number"),
    Row("serve-sim --pods 2 --restart 5@10", "--restart 5@10: pod must be from 0 to 1"),
    # sql
    Row("sql 'DROP TABLE samples' --db {db}", "read-only"),
    Row("sql 'SELECT 1' --db {db} --max-rows 0", "--max-rows must be at least 1"),
    Row("sql 'SELECT 1' --source {tmp}/empty", r"empty is not a kvscope Parquet export"),
    # sweep
    Row(
        "sweep {trace} --grid {tmp}/router.toml --db {new}",
        r"router\.toml: grid key 'router': unknown router 'nope'",
        ("{new}",),
    ),
    Row(
        "sweep {trace} --grid {tmp}/nohbm.toml --db {new}",
        r"nohbm\.toml: config 0 \(pods=2\): give --hbm-blocks",
        ("{new}",),
    ),
    Row(
        "sweep {trace} --grid {tmp}/broken.toml --db {new}",
        r"broken\.toml: not a valid TOML grid",
        ("{new}",),
    ),
    Row("sweep {trace} --grid {tmp}/router.toml --workers 0", "--workers must be at least 1, got 0"),
]


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("bad-inputs") / "sample.duckdb"
    sample_store(db)
    return db


@pytest.fixture
def places(tmp_path, sample_db) -> dict[str, str]:
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(json.dumps(r) + "\n" for r in MOONCAKE))
    (tmp_path / "huge.jsonl").write_text(json.dumps({**MOONCAKE[0], "input_length": 10**30}) + "\n")
    (tmp_path / "empty").mkdir()
    bad_sample = tmp_path / "badsample"  # readable files with every column, but a ts that is text
    bad_sample.mkdir()
    for name in ("metrics.parquet", "requests.parquet"):
        (bad_sample / name).symlink_to(SAMPLE_DATA_DIR / name)
    pq.write_table(
        pa.table({"ts": ["soon"], "kind": ["x"], "text": ["y"]}), bad_sample / "annotations.parquet"
    )
    (tmp_path / "router.toml").write_text('router = ["round_robin", "nope"]\nhbm_blocks = [10]\n')
    (tmp_path / "nohbm.toml").write_text("pods = [2]\n")
    (tmp_path / "broken.toml").write_text("pods = [1,\n")
    (tmp_path / "answer.json").write_text('{"data": {"result": []}}')
    return {
        "tmp": str(tmp_path),
        "db": str(sample_db),
        "new": str(tmp_path / "new.duckdb"),
        "trace": str(trace),
        "start": "2026-11-30T01:00:00",
        "end": "2026-11-30T02:00:00",
    }


def _no_compiling(*args, **kwargs):
    raise AssertionError("compiling before the bad input was refused")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.line[:70])
def test_bad_input_is_one_line_on_stderr_and_exit_2(row, places, sample_db, capsys, monkeypatch):
    # Bad input is refused before any kernel compiles: on a cold cache, compiling would print its
    # progress first and take half a minute before the error.
    monkeypatch.setattr(_common, "warm_up", _no_compiling)
    monkeypatch.setattr(_common, "is_warm", lambda: False)
    argv = [a.format(**places) for a in row.argv]
    before = digest(sample_db)
    code = main(argv)
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"kvscope {row.command}: error: ") or lines[0].startswith("kvscope: error: ")
    assert "Traceback" not in err and "usage:" not in err and "Errno" not in err
    assert re.search(row.pattern, lines[0]), lines[0]
    assert out == ""
    assert digest(sample_db) == before
    for path in row.absent:
        assert not Path(path.format(**places)).exists(), path


def test_every_subcommand_has_a_row():
    commands = {module.NAME for module in command_modules()}
    assert commands - {row.command for row in ROWS} == set(), "add a bad-input row for each new subcommand"


def test_replay_save_confirms_on_stderr_and_keeps_json_alone_on_stdout(places, tmp_path, capsys):
    db = tmp_path / "saved.duckdb"
    code = main(
        ["replay", places["trace"], "--hbm-blocks", "10", "--save", "mine", "--db", str(db), "--json"]
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert json.loads(out)["requests"] == len(MOONCAKE)
    assert err.splitlines() == [f"kvscope replay: saved as 'mine' (run 1) in {db}"]


def test_query_prints_counts_as_whole_numbers(places, capsys):
    argv = ["query", "ttft_quantiles", "--db", places["db"], "--param", f"start={places['start']}"]
    argv += ["--param", f"end={places['end']}", "--param", "step=1800", "--param", "q=0.5"]
    assert main([*argv, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(isinstance(r["num_requests"], int) for r in rows)
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert ".0 " not in table and not any(line.endswith(".0") for line in table.splitlines())


def test_a_negative_looking_value_is_kept_as_the_option_value(places, capsys):
    code = main(["mrc", places["trace"], "--capacities", "-5", "--json"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot be negative, got -5" in err


def test_the_default_data_folder_is_still_made_on_demand(tmp_path, monkeypatch, capsys):
    # NOTE: `make run` passes --db data/kvscope.duckdb in a fresh clone; only ./data is made.
    # A 6-minute sample (not the 6-hour one) is enough to make the store; the folder is the point.
    write_sample(tmp_path / "short", hours=0.1)
    monkeypatch.chdir(tmp_path)
    assert main(["load-sample", "--db", "data/k.duckdb", "--dir", "short"]) == 0
    assert (tmp_path / "data" / "k.duckdb").is_file()
    assert "loaded into data/k.duckdb" in capsys.readouterr().out
