"""`kvscope mrc --approx` prints a sampled curve of a non-LRU policy and says it is approximate; exact stays the default."""

from __future__ import annotations

import json

from dashboard.cli import main
from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.engine.mrc_sampled import MEASURED_MAX_ABS_ERROR

CAPACITIES = "1827,18279,182790"


def test_mrc_approx_json_names_its_sampling_and_measured_error(mooncake_conversation, capsys):
    code = main(
        [
            "mrc",
            str(mooncake_conversation),
            "--policy",
            "s3fifo",
            "--capacities",
            CAPACITIES,
            "--approx",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["capacity_blocks"] == [1827, 18279, 182790]
    assert out["block_hit_ratio"][-1] == 0.3664124783362218  # every block held: the exact ceiling
    approx = out["approximation"]
    assert approx["rate"] == 0.05 and approx["seed"] == 0
    assert approx["max_abs_error"] == MEASURED_MAX_ABS_ERROR["s3fifo"]
    assert approx["label"] == "s3fifo (sampled 5%, measured ±0.07)"
    assert 0 < approx["requests_sampled"] < approx["requests"] == 12_031
    assert approx["raised_capacities"] == approx["windowed_capacities"] == 0  # one shared root block


def test_mrc_approx_says_which_capacities_near_the_shared_prompts_it_replayed_over_windows(capsys):
    sample = str(SAMPLE_DATA_DIR / "requests.parquet")
    code = main(["mrc", sample, "--policy", "s3fifo", "--capacities", "425,1000,4000,200000", "--approx"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert (
        code == 0
        and (
            "; of the capacities within reach of the 284 shared prefix blocks, 1 at a higher rate and 2 replayed "
            "whole over windows of time;"
        )
        in last
    )
    main(["mrc", sample, "--policy", "s3fifo", "--capacities", "425,1000,4000,200000", "--approx", "--json"])
    approx = json.loads(capsys.readouterr().out)["approximation"]
    assert approx["raised_capacities"] == 1 and approx["windowed_capacities"] == 2
    assert approx["method"].startswith(
        "spatial sampling of prefix subtrees (near the trunk: windows of time)"
    )


def test_mrc_approx_table_ends_with_a_line_saying_it_is_approximate(mooncake_conversation, capsys):
    code = main(
        ["mrc", str(mooncake_conversation), "--policy", "arc", "--capacities", CAPACITIES, "--approx"]
    )
    captured = capsys.readouterr()
    last = captured.out.strip().splitlines()[-1]
    assert code == 0 and last.startswith("approximate: arc (sampled 5%, measured ±0.08)")
    assert "drop --approx for the exact sweep" in last
    # NOTE: the work is announced on stderr before it starts (seconds on a large trace)
    assert "mrc arc: miniature simulation of 5% of the prefix subtrees (seed 0)" in captured.err


def test_mrc_without_approx_stays_exact(mooncake_conversation, capsys):
    code = main(["mrc", str(mooncake_conversation), "--policy", "fifo", "--capacities", "1827", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and "approximation" not in out


def test_mrc_rejects_a_rate_outside_zero_to_one(mooncake_conversation, capsys):
    code = main(["mrc", str(mooncake_conversation), "--policy", "fifo", "--approx", "--rate", "1.5"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--rate must be in (0, 1], got 1.5" in err[0]


def test_mrc_approx_of_fifo_is_its_exact_curve(mooncake_conversation, capsys):
    # FIFO's exact curve takes passes over the trace, not a replay per capacity: nothing to sample
    args = ["mrc", str(mooncake_conversation), "--policy", "fifo", "--capacities", CAPACITIES, "--json"]
    assert main([*args, "--approx"]) == 0
    approx = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    exact = json.loads(capsys.readouterr().out)
    assert "approximation" not in approx and approx == exact


def test_mrc_approx_of_lfu_is_its_exact_curve_with_the_replays_progress(mooncake_conversation, capsys):
    # LFU's exact curve is a heap-free replay per capacity (policies/lfu.py): quick, so not sampled
    args = ["mrc", str(mooncake_conversation), "--policy", "lfu", "--capacities", CAPACITIES, "--json"]
    assert main([*args, "--approx"]) == 0
    approx = capsys.readouterr()
    assert main(args) == 0
    exact = json.loads(capsys.readouterr().out)
    assert json.loads(approx.out) == exact and "approximation" not in exact
    assert "miniature" not in approx.err and "mrc lfu" in approx.err and "3/3" in approx.err
