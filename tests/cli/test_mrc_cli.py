"""`kvscope mrc` prints the exact LRU curve; its points equal the reference figures."""

from __future__ import annotations

import json

from dashboard.cli import main


def test_mrc_json_is_one_object_with_equal_length_lists(mooncake_conversation, capsys):
    code = main(
        ["mrc", str(mooncake_conversation), "--format", "mooncake", "--capacities", "18279,182790", "--json"]
    )
    out = capsys.readouterr().out
    assert code == 0 and out.count("\n") == 1
    curve = json.loads(out)
    assert curve["capacity_blocks"] == [18279, 182790]
    assert [round(v, 6) for v in curve["block_hit_ratio"]] == [0.278912, 0.366412]
    assert len(curve["token_hit_ratio"]) == 2


def test_mrc_rejects_bad_capacities_with_one_line(mooncake_conversation, capsys):
    code = main(["mrc", str(mooncake_conversation), "--capacities", "ten"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--capacities" in err[0]


def test_mrc_on_a_missing_file_names_it(tmp_path, capsys):
    code = main(["mrc", str(tmp_path / "absent.jsonl")])
    assert code == 2 and "absent.jsonl" in capsys.readouterr().err


def test_mrc_of_another_policy_is_swept(mooncake_conversation, capsys):
    code = main(
        ["mrc", str(mooncake_conversation), "--policy", "s3fifo", "--capacities", "1827,18279", "--json"]
    )
    captured = capsys.readouterr()
    curve = json.loads(captured.out)
    assert code == 0 and curve["capacity_blocks"] == [1827, 18279]
    assert curve["block_hit_ratio"][0] <= curve["block_hit_ratio"][1] <= 0.366412
    # NOTE: a replay per capacity shows its progress on stderr, leaving stdout one JSON object
    assert "mrc s3fifo" in captured.err and "2/2" in captured.err


def test_mrc_in_one_pass_shows_no_progress_bar(mooncake_conversation, capsys):
    code = main(
        ["mrc", str(mooncake_conversation), "--policy", "fifo", "--capacities", "1827,18279", "--json"]
    )
    assert code == 0 and "capacity" not in capsys.readouterr().err


def test_mrc_with_an_unknown_policy_lists_the_known_ones(mooncake_conversation, capsys):
    code = main(["mrc", str(mooncake_conversation), "--policy", "nope"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "unknown policy 'nope'; known: lru" in err[0]
