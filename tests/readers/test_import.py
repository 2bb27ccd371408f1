"""import-trace: a stored trace equals the file's; a failed import leaves the store exactly as it was."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dashboard.cli import main
from dashboard.engine.readers import read_trace
from dashboard.services.traces import import_trace, list_traces, load_stored_trace
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from tests.readers.test_cross_format import write_all

COLUMNS = (
    "arrival_s",
    "offsets",
    "block_ids",
    "input_tokens",
    "output_tokens",
    "session_ids",
    "turns",
    "type_codes",
)


def counts(store) -> tuple[int, int]:
    row = run_query(store, "trace_counts").iloc[0]
    return int(row["num_traces"]), int(row["num_trace_requests"])


def assert_same_trace(a, b):
    for col in COLUMNS:
        assert np.array_equal(getattr(a, col), getattr(b, col)), col
    assert (a.num_blocks, a.block_tokens, a.type_names) == (b.num_blocks, b.block_tokens, b.type_names)
    assert (a.tenant_ids is None) == (b.tenant_ids is None)


@pytest.mark.parametrize("fmt", ["mooncake", "bailian", "canonical", "openai-chat"])
def test_a_stored_trace_loads_back_identical_to_the_file(store, tmp_path, fmt):
    path = write_all(tmp_path)[fmt]
    info = import_trace(store, path, fmt, f"t-{fmt}", block_tokens=16)
    assert (info.num_requests, info.num_block_accesses, info.num_blocks) == (3, 10, 7)
    assert_same_trace(load_stored_trace(store, f"t-{fmt}"), read_trace(path, fmt, 16))


def test_the_real_mooncake_trace_round_trips_through_the_store(store, mooncake_conversation):
    info = import_trace(store, mooncake_conversation, None, "conv")
    assert (info.format, info.num_requests, info.num_block_accesses, info.num_blocks) == (
        "mooncake",
        12_031,
        288_500,
        182_790,
    )
    assert_same_trace(load_stored_trace(store, "conv"), read_trace(mooncake_conversation))
    assert [t.name for t in list_traces(store)] == ["conv"]


def test_a_duplicate_name_is_refused_and_changes_nothing(store, tmp_path):
    paths = write_all(tmp_path)
    import_trace(store, paths["mooncake"], "mooncake", "same")
    before = counts(store)
    with pytest.raises(ValueError, match="already imported"):
        import_trace(store, paths["bailian"], "bailian", "same")
    assert counts(store) == before == (1, 3)


def test_a_bad_line_deep_in_the_file_changes_nothing(store, tmp_path):
    path = tmp_path / "big.jsonl"
    good = [
        json.dumps({"timestamp": k, "input_length": 512, "output_length": 1, "hash_ids": [0, k]})
        for k in range(4_999)
    ]
    path.write_text(
        "\n".join(good) + '\n{"timestamp": 1, "input_length": 512, "output_length": "x", "hash_ids": [1]}\n'
    )
    import_trace(store, write_all(tmp_path)["canonical"], "canonical", "kept")
    before = counts(store)
    with pytest.raises(ValueError, match=r"big\.jsonl:5000: field 'output_length'"):
        import_trace(store, path, "mooncake", "big")
    assert counts(store) == before == (1, 3)


def test_loading_an_unknown_name_lists_the_known_ones(store, tmp_path):
    import_trace(store, write_all(tmp_path)["mooncake"], None, "known")
    with pytest.raises(ValueError, match=r"'nope' is neither a trace file nor .* \(imported: known\)"):
        load_stored_trace(store, "nope")


def test_a_store_without_trace_tables_has_no_traces(tmp_path):
    # A store made before migration 002, opened read-only (as replay does), is never migrated.
    db = tmp_path / "old.duckdb"
    store = open_store(db)
    store.cursor().execute("DROP TABLE trace_requests; DROP TABLE traces")
    store.close()
    store = open_store(db, read_only=True)
    try:
        assert len(list_traces(store)) == 0
        with pytest.raises(ValueError, match="imported: none"):
            load_stored_trace(store, "conv")
    finally:
        store.close()


def test_import_trace_command_end_to_end_then_replay_by_name(tmp_path, mooncake_conversation, capsys):
    db = tmp_path / "cli.duckdb"
    assert (
        main(["import-trace", str(mooncake_conversation), "--name", "conv", "--db", str(db), "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert (out["name"], out["num_requests"], out["num_blocks"], out["block_tokens"]) == (
        "conv",
        12_031,
        182_790,
        512,
    )
    assert main(["import-trace", str(mooncake_conversation), "--name", "conv", "--db", str(db)]) == 2
    assert "already imported" in capsys.readouterr().err
    assert (
        main(["replay", "conv", "--db", str(db), "--policy", "lru", "--hbm-blocks", "18279", "--json"]) == 0
    )
    assert round(json.loads(capsys.readouterr().out)["block_hit_ratio"], 6) == 0.278912
    store = open_store(db, read_only=True)
    try:
        assert counts(store) == (1, 12_031)
    finally:
        store.close()


def test_import_trace_prints_a_one_line_summary(tmp_path, capsys):
    path = write_all(tmp_path)["openai-chat"]
    assert main(["import-trace", str(path), "--name", "chat", "--db", str(tmp_path / "s.duckdb")]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines == ["imported 'chat' (openai-chat): 3 requests, 10 block accesses, 7 blocks of 16 tokens"]
