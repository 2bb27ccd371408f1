"""`kvscope plan`: one JSON object, captioned PNG/HTML files, one-line errors with exit 2."""

from __future__ import annotations

import json

import pytest

from dashboard.cli import main
from dashboard.core.config import SAMPLE_TRACE_LABEL


def plan_json(capsys, *args: str) -> dict:
    code = main(["plan", *args, "--json"])
    out = capsys.readouterr().out
    assert code == 0 and out.count("\n") == 1
    return json.loads(out)


def test_plan_json_has_one_option_per_hardware_with_pods_capacity_and_cost(mooncake_conversation, capsys):
    result = plan_json(
        capsys,
        "--trace",
        str(mooncake_conversation),
        "--target",
        "hit=0.3",
        "--hardware",
        "gh200",
        "h100-sxm",
        "--price-per-gpu-hour",
        "2.5",
    )
    assert [o["hardware"] for o in result["options"]] == ["gh200", "h100-sxm"]
    for option in result["options"]:
        assert (
            option["num_pods"] >= 1
            and option["hbm_kv_bytes_per_pod"] > 0
            and option["cpu_kv_bytes_per_pod"] > 0
        )
        assert option["cost_per_hour"] == pytest.approx(2.5 * option["num_pods"])
        assert option["point"]["token_hit_ratio"] >= 0.3 and option["curve"]


def test_a_hardware_price_wins_over_the_price_for_all_for_that_hardware_only(mooncake_conversation, capsys):
    result = plan_json(
        capsys,
        *("--trace", str(mooncake_conversation), "--target", "hit=0.3", "--hardware", "gh200", "h100-sxm"),
        *("--price-per-gpu-hour", "2.5", "--hardware-price", "gh200=6.5"),
    )
    gh200, h100 = result["options"]
    assert gh200["price_per_gpu_hour"] == 6.5 and gh200["cost_per_hour"] == pytest.approx(
        6.5 * gh200["num_pods"]
    )
    assert h100["price_per_gpu_hour"] == 2.5 and h100["cost_per_hour"] == pytest.approx(
        2.5 * h100["num_pods"]
    )
    assert result["request"]["hardware_prices"] == [["gh200", 6.5]]


def test_plan_on_the_default_sample_meets_a_ttft_target(capsys):
    result = plan_json(capsys, "--target", "ttft-p90=0.5", "--hardware", "gh200")
    option = result["options"][0]
    assert result["num_requests"] > 10_000 and option["point"]["ttft_s"]["p90"] <= 0.5
    assert result["trace_source"] == SAMPLE_TRACE_LABEL  # named: an exported caption shows no local path


def test_plan_reads_user_profiles_from_toml(mooncake_conversation, tmp_path, capsys):
    toml = tmp_path / "mine.toml"
    toml.write_text(
        "[hardware.cli-test-gpu]\nhbm_gb = 141\nhbm_bandwidth_gb_s = 4800\npeak_bf16_tflops = 989\n"
        "cpu_dram_gb = 480\nlink_h2d_gb_s = 450\n"
    )
    result = plan_json(
        capsys,
        "--trace",
        str(mooncake_conversation),
        "--target",
        "hit=0.3",
        "--hardware",
        "cli-test-gpu",
        "--profiles",
        str(toml),
    )
    assert result["options"][0]["hardware"] == "cli-test-gpu" and result["options"][0]["num_pods"] >= 1


def test_plan_writes_a_self_contained_captioned_html(mooncake_conversation, tmp_path, capsys):
    out = tmp_path / "plan.html"
    code = main(
        [
            "plan",
            "--trace",
            str(mooncake_conversation),
            "--target",
            "hit=0.3",
            "--hardware",
            "gh200",
            "--html",
            str(out),
        ]
    )
    page = out.read_text()
    assert code == 0 and "<figcaption>plan for token hit ratio ≥ 30%; model llama-3.1-8b" in page
    assert "conversation_trace.jsonl" in page and "kvscope " in page


@pytest.mark.usefixtures("system_chromium")  # skipped without one, failed in CI
def test_plan_writes_a_png(mooncake_conversation, tmp_path, capsys):
    out = tmp_path / "plan.png"
    code = main(
        [
            "plan",
            "--trace",
            str(mooncake_conversation),
            "--target",
            "hit=0.3",
            "--hardware",
            "gh200",
            "--png",
            str(out),
        ]
    )
    assert code == 0 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20_000


def test_plan_policies_reads_each_policy_at_every_planned_pooled_capacity(mooncake_conversation, capsys):
    result = plan_json(
        capsys, "--trace", str(mooncake_conversation), "--target", "hit=0.3", "--policies", "arc"
    )
    policies = result["policies"]
    assert policies["method"].startswith("an exact replay")
    rows = policies["at_plan"]
    assert [r["hardware"] for r in rows] == [o["hardware"] for o in result["options"]]
    for row, option in zip(rows, result["options"], strict=True):
        assert row["num_pods"] == option["num_pods"]
        assert row["pooled_blocks"] == option["num_pods"] * max(
            option["hbm_blocks_per_pod"], option["cpu_blocks_per_pod"]
        )
        assert list(row["token_hit_ratio"]) == ["lru", "arc"]
        assert row["token_hit_ratio"]["lru"] == option["point"]["token_hit_ratio"]
        assert 0.0 < row["token_hit_ratio"]["arc"] < 1.0


def test_plan_policies_table_says_how_its_figures_were_made(mooncake_conversation, capsys):
    code = main(
        ["plan", "--trace", str(mooncake_conversation), "--target", "hit=0.3", "--policies", "s3fifo"]
    )
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert code == 0
    # NOTE: the replays show their progress on stderr
    assert "plan --policies" in captured.err and "replay" in captured.err
    at = out.index(
        "token hit ratio at each plan's pooled capacity, by eviction policy (exact replays of one cache)"
    )
    assert out[at + 1].split() == ["hardware", "pods", "pooled", "blocks", "lru", "s3fifo"]
    assert out[at + 2].split()[0] == "gh200" and out[at + 2].endswith("%")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--target", "hit=1.5"], "between 0 and 1"),
        (["--target", "p90=0.5"], "--target"),
        (["--hardware", "tpu-v9"], "unknown hardware 'tpu-v9'"),
        (["--model", "gpt-9"], "unknown model 'gpt-9'"),
        (["--price-per-gpu-hour", "-1"], "--price-per-gpu-hour"),
        (["--hardware-price", "gh200"], "--hardware-price 'gh200': expected HW=USD"),
        (["--hardware-price", "gh200=lots"], "--hardware-price 'gh200=lots': expected HW=USD"),
        (["--hardware-price", "h20=3"], "h20 is not among --hardware"),
        (["--hardware-price", "gh200=-1"], "a price must not be negative"),
        (["--trace", "absent.jsonl"], "absent.jsonl"),
        (["--profiles", "absent.toml"], "absent.toml"),
    ],
)
def test_bad_plan_input_is_one_line_and_exit_2(args, needle, capsys):
    code = main(["plan", *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("kvscope plan: error:") and needle in err[0]
