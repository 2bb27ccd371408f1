"""`kvscope replay --save` and `kvscope sweep` store their results in a real DuckDB file for the UI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dashboard.cli import main
from dashboard.engine.mrc import lru_mrc
from dashboard.engine.readers.mooncake import read_mooncake
from dashboard.services.replay import ReplayRequest, run_replay
from dashboard.services.saved_replays import list_replays, load_replay, save_replay
from dashboard.store.db import open_store


def test_replay_save_stores_one_run_that_loads_back(mooncake_conversation, tmp_path, capsys):
    db = tmp_path / "k.duckdb"
    args = [
        "replay",
        str(mooncake_conversation),
        "--hbm-blocks",
        "18279",
        "--db",
        str(db),
        "--save",
        "ref",
        "--json",
    ]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert main(args) == 0, "saving the same name again replaces the run"
    capsys.readouterr()
    store = open_store(db)
    try:
        runs = list_replays(store)
        saved = load_replay(store, "ref")
    finally:
        store.close()
    assert runs["name"].tolist() == ["ref"]
    assert round(runs["block_hit_ratio"].iloc[0], 6) == 0.278912
    assert saved.summary["block_hits"] == printed["block_hits"] and saved.config["hbm_blocks"] == 18279


def test_saved_curves_round_trip(mooncake_conversation, store):
    trace = read_mooncake(mooncake_conversation)
    summary = run_replay(trace, ReplayRequest(hbm_blocks=1827))
    curve = lru_mrc(trace, np.array([1827, 18279]))
    save_replay(store, "with-curve", "conv", summary, curves={"lru": curve})
    loaded = load_replay(store, "with-curve").curves["lru"]
    assert loaded.capacity_blocks.tolist() == [1827, 18279]
    assert loaded.block_hit_ratio.tolist() == curve.block_hit_ratio.tolist()


def test_loading_an_unknown_run_lists_the_saved_ones(store, capsys):
    with pytest.raises(ValueError, match="no saved replay called 'x'; saved: none saved yet"):
        load_replay(store, "x")


def test_sweep_on_a_four_config_grid_stores_four_rows(mooncake_conversation, tmp_path, capsys):
    grid = tmp_path / "four.toml"
    grid.write_text('pods = [1, 4]\nrouter = ["round_robin", "least_loaded"]\nhbm_blocks = 4569\n')
    db = tmp_path / "k.duckdb"
    assert main(["sweep", str(mooncake_conversation), "--grid", str(grid), "--db", str(db), "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert len(out["configs"]) == 4 and captured.out.count("\n") == 1
    assert "4/4" in captured.err, "the progress bar goes to stderr"
    store = open_store(db)
    try:
        runs = list_replays(store, sweep="four")
    finally:
        store.close()
    assert len(runs) == 4
    assert sorted(runs["name"]) == ["four/0", "four/1", "four/2", "four/3"]
    by_name = dict(zip(runs["name"], runs["block_hit_ratio"], strict=True))
    # pods=4 × round_robin with 4,569 blocks each is the README's 0.116943.
    assert round(by_name["four/2"], 6) == 0.116943
    assert round(out["configs"][2]["block_hit_ratio"], 6) == 0.116943


def test_sweep_with_a_bad_grid_exits_2_with_one_line(mooncake_conversation, tmp_path, capsys):
    grid = tmp_path / "bad.toml"
    grid.write_text('routers = ["prefix"]\n')
    code = main(["sweep", str(mooncake_conversation), "--grid", str(grid), "--no-save"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "routers" in err[0]


def test_replay_save_with_an_empty_name_exits_2(mooncake_conversation, tmp_path, capsys):
    code = main(
        [
            "replay",
            str(mooncake_conversation),
            "--hbm-blocks",
            "10",
            "--db",
            str(tmp_path / "k.duckdb"),
            "--save",
            "",
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "non-empty name" in err[0]
