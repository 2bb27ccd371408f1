"""`kvscope sweep --executor ray` on a real Ray head: the same figures and store rows as the local
executor, and one line with exit 2 when Ray is missing or its address does not answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.services.saved_replays import list_replays, load_replay
from dashboard.services.sweep_executors import EXECUTORS
from dashboard.store.db import open_store
from tests.conftest import REPO_ROOT
from tests.ray_head import free_port, ray_binary, ray_head

# 4 configs: a seeded random router and the EPP's prefix scorer, two policies, HBM and a CPU tier.
GRID = (
    'name = "tiny"\npods = 4\nrouter = ["random", "prefix"]\npolicy = ["lru", "s3fifo"]\n'
    "hbm_blocks = 4569\ncpu_blocks = 9138\n"
)
TIMINGS = {"elapsed_s"}  # wall-clock figures, the only ones allowed to differ
ROW_BOOKKEEPING = {"run_id", "created_at", "elapsed_s"}


@pytest.fixture(scope="module")
def head():
    with ray_head(num_cpus=2) as running:
        yield running


@pytest.fixture
def grid(tmp_path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(GRID)
    return path


def without(d: dict, keys: set[str]) -> dict:
    return {k: v for k, v in d.items() if k not in keys}


def stored(db: Path) -> tuple[list[dict], dict[str, tuple]]:
    """The sweep's rows (bookkeeping columns dropped) and each run's trace, config and summary."""
    store = open_store(db)
    try:
        rows = list_replays(store, sweep="tiny").sort_values("name")
        runs = {name: load_replay(store, name) for name in rows["name"]}
    finally:
        store.close()
    records = [without(r, ROW_BOOKKEEPING) for r in rows.to_dict("records")]
    return records, {n: (r.trace, r.config, without(r.summary, TIMINGS)) for n, r in runs.items()}


def test_ray_sweep_equals_the_local_sweep_figure_for_figure_and_row_for_row(
    head, grid, mooncake_conversation, tmp_path, capsys
):
    trace = str(mooncake_conversation)
    local_db, ray_db = tmp_path / "local.duckdb", tmp_path / "ray.duckdb"
    assert main(["sweep", trace, "--grid", str(grid), "--db", str(local_db), "--json"]) == 0
    local = json.loads(capsys.readouterr().out)
    # NOTE: a real `kvscope` process, as a user runs it, joining the head by address and token.
    ray_run = subprocess.run(
        [sys.executable, "-m", "dashboard", "sweep", trace, "--grid", str(grid), "--db", str(ray_db)]
        + ["--json", "--executor", "ray", "--address", head.address],
        cwd=REPO_ROOT,
        env=head.env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ray_run.returncode == 0, ray_run.stderr[-2000:]
    assert ray_run.stdout.count("\n") == 1, "--json prints one object and nothing else"
    assert "4/4" in ray_run.stderr, "the same progress bar on stderr"
    remote = json.loads(ray_run.stdout)
    assert (local["executor"], remote["executor"]) == ("local", "ray")
    assert len(remote["configs"]) == 4
    assert [without(c, TIMINGS) for c in remote["configs"]] == [without(c, TIMINGS) for c in local["configs"]]
    assert stored(ray_db) == stored(local_db)


def test_an_address_nobody_answers_at_is_one_line_and_exit_2(grid, mooncake_conversation, capsys):
    ray_binary()  # NOTE: without the ray extra the error is the one the next test checks
    address = f"127.0.0.1:{free_port()}"
    code = main(
        ["sweep", str(mooncake_conversation), "--grid", str(grid), "--no-save"]
        + ["--executor", "ray", "--address", address]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert f"--address {address}: no Ray cluster answers there (connection refused)" in err[0]


def test_without_ray_installed_the_error_says_which_extra(grid, mooncake_conversation, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # NOTE: what `import ray` meets when it is not installed
    code = main(["sweep", str(mooncake_conversation), "--grid", str(grid), "--no-save", "--executor", "ray"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].endswith("install the ray extra: pip install 'kvscope[ray]'")


def test_an_address_without_the_ray_executor_is_refused(grid, mooncake_conversation, capsys):
    code = main(
        ["sweep", str(mooncake_conversation), "--grid", str(grid), "--no-save", "--address", "h:6379"]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--address is for --executor ray" in err[0]


def test_every_executor_is_documented():
    docs = (REPO_ROOT / "docs" / "whatif.md").read_text()
    for name in EXECUTORS:
        assert f"`--executor {name}`" in docs, f"docs/whatif.md does not describe --executor {name}"
