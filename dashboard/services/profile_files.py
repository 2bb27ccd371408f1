"""User hardware and model profiles from a TOML file: `[hardware.NAME]` and `[model.NAME]` tables.

Every error is one line naming the file, the table and the key (docs/planner.md has an example).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from dashboard.core import profiles
from dashboard.core.profiles import GB, HardwareProfile, ModelProfile

# key: (required, kind, profile field, scale) — kinds: "number" (> 0), "int" (> 0), "text", "fraction"
HARDWARE_KEYS = {
    "hbm_gb": (True, "number", "hbm_bytes", GB),
    "hbm_bandwidth_gb_s": (True, "number", "hbm_bandwidth_bytes_per_s", GB),
    "peak_bf16_tflops": (True, "number", "peak_bf16_flops", 1e12),
    "cpu_dram_gb": (True, "number", "cpu_dram_bytes", GB),
    "link_h2d_gb_s": (True, "number", "link_h2d_bytes_per_s", GB),
    "link_nominal": (False, "text", "link_nominal", None),
    "mfu": (False, "fraction", "mfu", None),
    "price_per_gpu_hour": (False, "number", "price_per_gpu_hour", None),
    "source": (False, "text", "source", None),
}
MODEL_KEYS = {
    "params_b": (True, "number", "num_params", 1e9),
    "active_params_b": (False, "number", "num_active_params", 1e9),
    "num_layers": (True, "int", "num_layers", None),
    "num_kv_heads": (True, "int", "num_kv_heads", None),
    "head_dim": (True, "int", "head_dim", None),
    "num_heads": (False, "int", "num_heads", None),
    "kv_dtype_bytes": (False, "int", "dtype_bytes", None),
    "weight_dtype_bytes": (False, "int", "weight_dtype_bytes", None),
    "source": (False, "text", "source", None),
}
TABLES = {"hardware": (HARDWARE_KEYS, HardwareProfile), "model": (MODEL_KEYS, ModelProfile)}


def read_profiles(path: str | Path) -> tuple[list[HardwareProfile], list[ModelProfile]]:
    """Parse and validate a profiles file; ValueError('FILE: [table.NAME] key: problem') on bad input."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such profiles file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None
    for table in data:
        if table not in TABLES:
            raise ValueError(f"{path}: [{table}]: unknown table; expected [hardware.NAME] or [model.NAME]")
    found: dict[str, list] = {"hardware": [], "model": []}
    for table, entries in data.items():
        keys, cls = TABLES[table]
        if not isinstance(entries, dict):
            raise ValueError(f"{path}: {table}: expected tables like [{table}.NAME]")
        for name, values in entries.items():
            where = f"{path}: [{table}.{name}]"
            if not isinstance(values, dict):
                raise ValueError(f"{where}: expected a table of keys, got {type(values).__name__}")
            fields = _fields(where, values, keys)
            if table == "hardware":
                fields.setdefault(
                    "link_nominal", f"{values['link_h2d_gb_s']:g} GB/s host-to-device (user profile)"
                )
            found[table].append(cls(name=name, **fields))
    return found["hardware"], found["model"]


def load_profiles(path: str | Path) -> tuple[list[str], list[str]]:
    """Read a profiles file and register every profile in it; returns (hardware names, model names)."""
    hardware, models = read_profiles(path)
    for hw in hardware:
        profiles.register_hardware(hw)
    for m in models:
        profiles.register_model(m)
    return [h.name for h in hardware], [m.name for m in models]


def _fields(where: str, values: dict, keys: dict) -> dict:
    unknown = sorted(set(values) - set(keys))
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r}; known: {', '.join(keys)}")
    out = {}
    for key, (required, kind, field, scale) in keys.items():
        if key not in values:
            if required:
                raise ValueError(f"{where}: missing key {key!r}")
            continue
        out[field] = _checked(f"{where} {key}", values[key], kind, scale)
    return out


def _checked(where: str, value, kind: str, scale: float | None):
    if kind == "text":
        if not isinstance(value, str):
            raise ValueError(f"{where}: expected text, got {value!r}")
        return value
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "int" and not (isinstance(value, int) and not isinstance(value, bool) and value > 0):
        raise ValueError(f"{where}: expected a positive whole number, got {value!r}")
    if kind == "fraction" and not (is_number and 0 < value <= 1):
        raise ValueError(f"{where}: expected a number in (0, 1], got {value!r}")
    if kind == "number" and not (is_number and value > 0):
        raise ValueError(f"{where}: expected a positive number, got {value!r}")
    return value * scale if scale is not None else value
