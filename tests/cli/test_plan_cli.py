"""`kvscope plan`: one JSON object, captioned PNG/HTML files, one-line errors with exit 2."""

from __future__ import annotations

import json

import pytest

from dashboard.cli import main


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


def test_plan_on_the_default_sample_meets_a_ttft_target(capsys):
    result = plan_json(capsys, "--target", "ttft-p90=0.5", "--hardware", "gh200")
    option = result["options"][0]
    assert result["num_requests"] > 10_000 and option["point"]["ttft_s"]["p90"] <= 0.5


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
    curves, rows = result["policies"]["curves"], result["policies"]["at_plan"]
    assert [(c["policy"], c["approximate"]) for c in curves] == [("lru", False), ("arc", True)]
    assert curves[1]["label"] == "arc (sampled 5%, measured ±0.10)" and curves[1]["max_abs_error"] == 0.1
    assert [r["hardware"] for r in rows] == [o["hardware"] for o in result["options"]]
    for row, option in zip(rows, result["options"], strict=True):
        assert row["num_pods"] == option["num_pods"]
        assert row["pooled_blocks"] == option["num_pods"] * max(
            option["hbm_blocks_per_pod"], option["cpu_blocks_per_pod"]
        )
        assert row["token_hit_ratio"]["lru"] == option["point"]["token_hit_ratio"]
        assert 0.0 <= row["token_hit_ratio"]["arc"] <= 1.0


def test_plan_exact_curves_replays_every_capacity_of_each_policy(mooncake_conversation, capsys):
    args = ["--trace", str(mooncake_conversation), "--target", "hit=0.3", "--hardware", "gh200"]
    args += ["--policies", "fifo"]
    sampled = plan_json(capsys, *args)["policies"]
    exact = plan_json(capsys, *args, "--exact-curves")["policies"]
    assert sampled["curves"][1]["approximate"] and not exact["curves"][1]["approximate"]
    assert exact["curves"][1]["label"] == "fifo (exact)" and exact["curves"][1]["max_abs_error"] == 0.0
    # NOTE: the same plan either way; only fifo's figure moves, by at most its stated bound
    assert sampled["at_plan"][0]["token_hit_ratio"]["lru"] == exact["at_plan"][0]["token_hit_ratio"]["lru"]
    moved = abs(
        sampled["at_plan"][0]["token_hit_ratio"]["fifo"] - exact["at_plan"][0]["token_hit_ratio"]["fifo"]
    )
    assert moved <= sampled["curves"][1]["max_abs_error"]


def test_plan_policies_table_names_each_curve_and_how_it_was_made(mooncake_conversation, capsys):
    code = main(
        ["plan", "--trace", str(mooncake_conversation), "--target", "hit=0.3", "--policies", "s3fifo"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "lru (exact)  s3fifo (sampled 5%, measured ±0.17)" in out
    assert "Curves marked sampled are approximate" in out and "s3fifo ±0.17" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--target", "hit=1.5"], "between 0 and 1"),
        (["--target", "p90=0.5"], "--target"),
        (["--hardware", "tpu-v9"], "unknown hardware 'tpu-v9'"),
        (["--model", "gpt-9"], "unknown model 'gpt-9'"),
        (["--price-per-gpu-hour", "-1"], "--price-per-gpu-hour"),
        (["--trace", "absent.jsonl"], "absent.jsonl"),
        (["--profiles", "absent.toml"], "absent.toml"),
    ],
)
def test_bad_plan_input_is_one_line_and_exit_2(args, needle, capsys):
    code = main(["plan", *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("kvscope plan: error:") and needle in err[0]
