"""services/whatif.py: trace keys, uploads named by the user's file, command lines that replay the same figures, saved runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.core.scenarios import Scenario
from dashboard.engine.readers import read_trace
from dashboard.services import compare, whatif
from dashboard.services.replay import ReplayRequest, run_replay
from dashboard.services.saved_replays import save_replay
from dashboard.services.sweep import run_sweep, save_sweep
from dashboard.services.traces import import_trace

REPO = Path(__file__).resolve().parents[2]
TINY = (
    b'{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, 1]}\n'
    b'{"timestamp": 1000, "input_length": 700, "output_length": 5, "hash_ids": [0, 1, 2]}\n'
)


def test_an_upload_key_carries_the_users_file_name_and_reads_the_kept_copy():
    key = whatif.upload_key(TINY, "my trace.jsonl")
    src = whatif.source(key)
    assert key.startswith("upload:my trace.jsonl#") and src.label == "my trace.jsonl"
    assert Path(src.path).parent == whatif.UPLOAD_DIR and Path(src.path).read_bytes() == TINY
    assert whatif.read_source(None, src, "auto").num_requests == 2


def test_an_unreadable_upload_is_reported_under_the_users_file_name():
    src = whatif.source(whatif.upload_key(b'{"timestamp": 0, "input_length": 5}\n', "broken.jsonl"))
    with pytest.raises(ValueError) as err:
        whatif.read_source(None, src, "mooncake")
    assert "broken.jsonl" in str(err.value) and str(whatif.UPLOAD_DIR) not in str(err.value)


def test_the_command_line_names_the_users_file_never_the_temp_copy():
    src = whatif.source(whatif.upload_key(TINY, "conversation_trace.jsonl"))
    line = whatif.command_line(src, "mooncake", Scenario(num_pods=2, hbm_blocks=100, cpu_blocks=300))
    assert line == (
        "kvscope replay conversation_trace.jsonl --format mooncake --pods 2 --router prefix --policy lru "
        "--hbm-blocks 100 --cpu-blocks 300"
    )
    assert "kvscope-uploads" not in line


def test_the_command_line_sets_everything_the_page_does():
    src = whatif.source("stored:conv")
    line = whatif.command_line(
        src,
        "auto",
        Scenario(hbm_blocks=10, hardware="h200", model="qwen3-0.6b", prefix_weight=5.0),
        "db.duckdb",
    )
    assert line.startswith("kvscope replay conv --db db.duckdb --pods 8")
    assert "--hbm-blocks 10 --hardware h200 --model qwen3-0.6b" in line
    assert line.endswith("--scorer-weights 2,2,5") and "#" not in line


@pytest.mark.parametrize(
    "scenario",
    [
        Scenario(num_pods=4, router="precise_prefix", hbm_blocks=4569, cpu_blocks=13710, hardware="h200"),
        Scenario(num_pods=4, router="prefix", hbm_blocks=2000, model="qwen3-0.6b", prefix_weight=5.0),
    ],
    ids=["precise", "weights-and-latency-model"],
)
def test_the_command_line_replays_the_same_figures(mooncake_conversation, scenario, capsys):
    src = whatif.TraceSource("file:x", str(mooncake_conversation), str(mooncake_conversation))
    args = whatif.command_line(src, "mooncake", scenario).split()[2:]
    assert main(["replay", *args, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    result = compare.run_scenario(read_trace(str(mooncake_conversation), "mooncake"), scenario)
    assert printed["token_hit_ratio"] == result.summary.token_hit_ratio
    assert printed["ttft_s"] == result.summary.ttft_s


@pytest.mark.parametrize(
    "key", ["upload:x#../../etc/passwd", "upload:#0123456789abcdef01234567.jsonl", "db", "x:y"]
)
def test_malformed_trace_keys_are_refused(key):
    with pytest.raises(ValueError, match="not a trace key"):
        whatif.source(key)
    assert not whatif.is_valid_key(key)


def test_choices_hold_the_sample_stored_traces_saved_files_and_uploads(tmp_path):
    upload = whatif.upload_key(TINY, "t.jsonl")
    choices = whatif.trace_choices(["conv"], ["conv", str(REPO / "README.md"), "/no/such.jsonl"], [upload])
    assert choices == ["sample", "stored:conv", f"file:{REPO / 'README.md'}", upload]


def test_default_scenarios_give_eight_pods_a_tenth_of_the_unique_blocks():
    scenarios = whatif.default_scenarios(182_790)
    assert [s.router for s in scenarios] == ["round_robin", "prefix", "precise_prefix", "precise_prefix"]
    assert {s.hbm_blocks for s in scenarios} == {2300} and scenarios[3].policy == "s3fifo"


@pytest.fixture
def saved_store(store, mooncake_conversation):
    import_trace(store, mooncake_conversation, "mooncake", "conv")
    from dashboard.services.traces import load_stored_trace

    trace = load_stored_trace(store, "conv")
    save_replay(store, "solo", "conv", run_replay(trace, ReplayRequest(num_pods=1, hbm_blocks=18279)))
    reqs = [ReplayRequest(num_pods=2, router="precise_prefix", hbm_blocks=h) for h in (3000, 6000)]
    save_sweep(store, "hbm", str(mooncake_conversation), run_sweep(trace, reqs, num_workers=1))
    return store, trace


def test_a_saved_replay_reopens_as_a_scenario_with_the_same_figures(saved_store):
    store, trace = saved_store
    reopened = whatif.reopen(store, ["solo"], ["conv"])
    assert reopened.trace_key == "stored:conv"
    (scenario,) = reopened.scenarios
    assert scenario == Scenario(num_pods=1, router="round_robin", hbm_blocks=18279)
    assert compare.run_scenario(trace, scenario).summary.token_hit_ratio == reopened.saved_token_hit_ratios[0]


def test_sweep_runs_on_a_file_reopen_on_that_file(saved_store, mooncake_conversation):
    store, _ = saved_store
    reopened = whatif.reopen(store, ["hbm/0", "hbm/1"], ["conv"])
    assert reopened.trace_key == f"file:{mooncake_conversation}"
    assert [s.hbm_blocks for s in reopened.scenarios] == [3000, 6000]
    assert set(whatif.saved_runs(store)["name"]) == {"solo", "hbm/0", "hbm/1"}


def test_runs_of_different_traces_do_not_reopen_together(saved_store):
    store, _ = saved_store
    with pytest.raises(ValueError, match="different traces"):
        whatif.reopen(store, ["solo", "hbm/0"], ["conv"])
    with pytest.raises(ValueError, match="one to 4"):
        whatif.reopen(store, [], ["conv"])
