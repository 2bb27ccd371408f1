"""`kvscope replay` reproduces the Mooncake reference figures and rejects bad flags with one line."""

from __future__ import annotations

import json

import pytest

from dashboard.cli import main

REQUIRED_KEYS = {
    "requests",
    "block_accesses",
    "block_hits",
    "block_hit_ratio",
    "token_hit_ratio",
    "tiers",
    "ttft_s",
    "pods",
    "elapsed_s",
}


def replay_json(capsys, *args: str) -> dict:
    assert main(["replay", *args, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1, "--json prints exactly one line"
    return json.loads(out)


def test_single_lru_cache_reproduces_the_reference_hit_ratio(mooncake_conversation, capsys):
    result = replay_json(
        capsys, str(mooncake_conversation), "--format", "mooncake", "--policy", "lru", "--hbm-blocks", "18279"
    )
    assert result.keys() >= REQUIRED_KEYS
    assert round(result["block_hit_ratio"], 6) == 0.278912
    assert result["tiers"]["gpu"]["block_hits"] == result["block_hits"]
    assert set(result["ttft_s"]) == {"p50", "p90", "p99"}


def test_four_round_robin_pods_reproduce_the_reference_hit_ratio(mooncake_conversation, capsys):
    result = replay_json(
        capsys, str(mooncake_conversation), "--pods", "4", "--router", "round_robin", "--hbm-blocks", "4569"
    )
    assert round(result["block_hit_ratio"], 6) == 0.116943
    assert {p["requests"] for p in result["pods"].values()} <= {3007, 3008}


def test_cpu_tier_adds_offload_hits(mooncake_conversation, capsys):
    gpu_only = replay_json(capsys, str(mooncake_conversation), "--hbm-blocks", "4569")
    tiered = replay_json(capsys, str(mooncake_conversation), "--hbm-blocks", "4569", "--cpu-blocks", "13710")
    assert gpu_only["tiers"]["cpu"]["block_hits"] == 0
    assert tiered["tiers"]["cpu"]["block_hits"] > 0
    assert tiered["tiers"]["gpu"]["block_hits"] == pytest.approx(gpu_only["block_hits"], rel=0.2)
    # Never better than one LRU of the combined size (0.278912): the tiers can only hold less.
    assert gpu_only["block_hit_ratio"] < tiered["block_hit_ratio"] <= 0.278912


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--router", "nope", "--hbm-blocks", "10"], "unknown router 'nope'"),
        (["--policy", "nope", "--hbm-blocks", "10"], "unknown policy 'nope'"),
        ([], "--hbm-blocks"),
        (["--hbm-blocks", "-1"], "non-negative"),
        (["--hbm-blocks", "10", "--scorer-weights", "1,2"], "--scorer-weights '1,2'"),
        (["--hbm-blocks", "10", "--scorer-weights", "0,0,0"], "not all 0"),
    ],
)
def test_bad_flags_exit_2_with_one_line(mooncake_conversation, capsys, args, message):
    code = main(["replay", str(mooncake_conversation), *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0]


def test_hardware_and_model_size_hbm_from_profiles(mooncake_conversation, capsys):
    result = replay_json(capsys, str(mooncake_conversation), "--hardware", "gh200", "--model", "qwen3-0.6b")
    # 96 GB × 0.9 − 1.2 GB weights over 112 KiB × 512 tokens a block.
    assert result["config"]["hbm_blocks"] == int((96e9 * 0.9 - 1.2e9) // (114_688 * 512))
