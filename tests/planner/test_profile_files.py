"""User profiles from TOML: registered when valid; one-line errors naming file, table and key when not."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.core import profiles
from dashboard.services.profile_files import load_profiles, read_profiles

GOOD = """
[hardware.b200-test]
hbm_gb = 180
hbm_bandwidth_gb_s = 8000
peak_bf16_tflops = 2250
cpu_dram_gb = 240
link_h2d_gb_s = 54
link_nominal = "PCIe Gen5 x16"
price_per_gpu_hour = 6.0

[model.moe-test]
params_b = 30.5
active_params_b = 3.3
num_layers = 48
num_kv_heads = 4
head_dim = 128
num_heads = 32
"""


def write(tmp_path, text):
    path = tmp_path / "profiles.toml"
    path.write_text(text)
    return path


def test_valid_profiles_are_registered_with_units_converted(tmp_path):
    hardware, models = load_profiles(write(tmp_path, GOOD))
    assert (hardware, models) == (["b200-test"], ["moe-test"])
    assert profiles.hardware("b200-test").hbm_bytes == 180e9
    assert profiles.model("moe-test").active_params == 3.3e9
    assert profiles.model("moe-test").kv_bytes_per_token == 2 * 48 * 4 * 128 * 2


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("hbm_gb = 180", 'hbm_gb = "lots"'), "[hardware.b200-test] hbm_gb: expected a positive number"),
        (("hbm_gb = 180\n", ""), "[hardware.b200-test]: missing key 'hbm_gb'"),
        (
            ("num_layers = 48", "num_layers = 4.5"),
            "[model.moe-test] num_layers: expected a positive whole number",
        ),
        (("head_dim = 128", "head_dim = 128\nheads = 3"), "[model.moe-test]: unknown key 'heads'"),
        (("[model.moe-test]", "[models.moe-test]"), "[models]: unknown table"),
        (
            ("link_h2d_gb_s = 54", "link_h2d_gb_s = 0"),
            "[hardware.b200-test] link_h2d_gb_s: expected a positive number",
        ),
    ],
)
def test_each_bad_value_names_the_file_the_table_and_the_key(tmp_path, edit, expected):
    path = write(tmp_path, GOOD.replace(*edit))
    with pytest.raises(ValueError) as info:
        read_profiles(path)
    message = str(info.value)
    assert message.startswith(str(path)) and expected in message and "\n" not in message


def test_broken_toml_names_the_file_and_the_line(tmp_path):
    path = write(tmp_path, "[hardware.x\nhbm_gb = 1")
    with pytest.raises(ValueError, match=r"profiles.toml: not valid TOML: .*line 1"):
        read_profiles(path)


def test_a_missing_profiles_file_is_named(tmp_path):
    with pytest.raises(ValueError, match="absent.toml: no such profiles file"):
        read_profiles(tmp_path / "absent.toml")


def test_the_documented_example_profiles_file_is_valid():
    example = Path(__file__).resolve().parents[2] / "docs" / "planner-profiles.example.toml"
    hardware, models = read_profiles(example)
    assert [h.name for h in hardware] == ["b200-pcie-host"] and [m.name for m in models] == ["my-moe"]
    assert models[0].weight_bytes == 1 and hardware[0].price_per_gpu_hour == 6.0
