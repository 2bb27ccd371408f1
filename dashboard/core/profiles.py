"""Hardware and model profiles for the latency model; every number carries its source.

Users add their own with register_hardware / register_model (or a TOML file read by services).
"""

from __future__ import annotations

from dataclasses import dataclass

GB = 1e9
GiB = 1024**3


@dataclass(frozen=True)
class HardwareProfile:
    """One accelerator and the link to its CPU memory tier."""

    name: str
    hbm_bytes: float
    hbm_bandwidth_bytes_per_s: float
    peak_bf16_flops: float  # dense
    cpu_dram_bytes: float
    link_h2d_bytes_per_s: float  # effective CPU→GPU bandwidth used for loading offloaded KV
    link_nominal: str  # what the vendor quotes
    mfu: float = 0.4  # fraction of peak reached in prefill; NOTE: typical of published vLLM runs
    source: str = ""


@dataclass(frozen=True)
class ModelProfile:
    """Model shape: enough for KV bytes per token and prefill/decode cost."""

    name: str
    num_params: float
    num_layers: int
    num_kv_heads: int
    head_dim: int
    dtype_bytes: int = 2
    source: str = ""

    @property
    def kv_bytes_per_token(self) -> int:
        """2 (K and V) × layers × kv_heads × head_dim × dtype bytes."""
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * self.dtype_bytes


HARDWARE: dict[str, HardwareProfile] = {
    "gh200": HardwareProfile(
        name="gh200",
        hbm_bytes=96 * GB,
        hbm_bandwidth_bytes_per_s=4.0e12,
        peak_bf16_flops=989e12,
        cpu_dram_bytes=480 * GB,
        # NVLink-C2C: 900 GB/s total, i.e. 450 GB/s in each direction.
        link_h2d_bytes_per_s=450 * GB,
        link_nominal="NVLink-C2C 900 GB/s (both directions)",
        source="NVIDIA GH200 Grace Hopper Superchip datasheet (96 GB HBM3, 480 GB LPDDR5X, "
        "NVLink-C2C 900 GB/s)",
    ),
    "h100-sxm": HardwareProfile(
        name="h100-sxm",
        hbm_bytes=80 * GB,
        hbm_bandwidth_bytes_per_s=3.35e12,
        peak_bf16_flops=989e12,
        cpu_dram_bytes=1000 * GB,
        # PCIe Gen5 x16: 64 GB/s per direction nominal, about 54 GB/s host-to-device measured.
        link_h2d_bytes_per_s=54 * GB,
        link_nominal="PCIe Gen5 x16, 64 GB/s per direction (54 GB/s measured H2D)",
        source="NVIDIA H100 SXM5 datasheet (80 GB HBM3, 3.35 TB/s, 989 TFLOPS bf16 dense); "
        "PCIe Gen5 x16 spec; public nvbandwidth host-to-device runs",
    ),
    "h200": HardwareProfile(
        name="h200",
        hbm_bytes=141 * GB,
        hbm_bandwidth_bytes_per_s=4.8e12,
        peak_bf16_flops=989e12,
        cpu_dram_bytes=1000 * GB,
        link_h2d_bytes_per_s=54 * GB,
        link_nominal="PCIe Gen5 x16, 64 GB/s per direction (54 GB/s measured H2D)",
        source="NVIDIA H200 datasheet (141 GB HBM3e, 4.8 TB/s); PCIe Gen5 x16 as H100",
    ),
}

MODELS: dict[str, ModelProfile] = {
    "qwen3-0.6b": ModelProfile(
        name="qwen3-0.6b",
        num_params=0.6e9,
        num_layers=28,
        num_kv_heads=8,
        head_dim=128,
        source="Qwen/Qwen3-0.6B config.json (28 layers, 8 KV heads, head_dim 128, bf16)",
    ),
    "llama-3.1-8b": ModelProfile(
        name="llama-3.1-8b",
        num_params=8.0e9,
        num_layers=32,
        num_kv_heads=8,
        head_dim=128,
        source="meta-llama/Llama-3.1-8B config.json (32 layers, 8 KV heads, head_dim 128)",
    ),
    "llama-3.1-70b": ModelProfile(
        name="llama-3.1-70b",
        num_params=70.6e9,
        num_layers=80,
        num_kv_heads=8,
        head_dim=128,
        source="meta-llama/Llama-3.1-70B config.json (80 layers, 8 KV heads, head_dim 128)",
    ),
}


def hardware(name: str) -> HardwareProfile:
    """The hardware profile called name, or a ValueError listing the known ones."""
    try:
        return HARDWARE[name]
    except KeyError:
        raise ValueError(f"unknown hardware {name!r}; known: {', '.join(sorted(HARDWARE))}") from None


def model(name: str) -> ModelProfile:
    """The model profile called name, or a ValueError listing the known ones."""
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; known: {', '.join(sorted(MODELS))}") from None


def register_hardware(profile: HardwareProfile) -> None:
    """Add or replace a user hardware profile."""
    HARDWARE[profile.name] = profile


def register_model(profile: ModelProfile) -> None:
    """Add or replace a user model profile."""
    MODELS[profile.name] = profile


def prefill_seconds(hw: HardwareProfile, m: ModelProfile, num_tokens: float) -> float:
    """Compute-bound prefill time: 2 × params FLOPs per token at mfu × peak."""
    return 2.0 * m.num_params * num_tokens / (hw.peak_bf16_flops * hw.mfu)


def decode_seconds_per_token(hw: HardwareProfile, m: ModelProfile) -> float:
    """Memory-bound decode step: read the weights once per token at HBM bandwidth."""
    return m.num_params * m.dtype_bytes / hw.hbm_bandwidth_bytes_per_s


def load_seconds(hw: HardwareProfile, m: ModelProfile, num_tokens: float) -> float:
    """Time to bring num_tokens of KV from the CPU tier into HBM over the host link."""
    return m.kv_bytes_per_token * num_tokens / hw.link_h2d_bytes_per_s


def hbm_kv_blocks(hw: HardwareProfile, m: ModelProfile, block_tokens: int, kv_share: float = 0.9) -> int:
    """KV blocks that fit in HBM after the weights, using kv_share of the rest (vLLM's 0.9)."""
    free_bytes = max(hw.hbm_bytes * kv_share - m.num_params * m.dtype_bytes, 0.0)
    return int(free_bytes // (m.kv_bytes_per_token * block_tokens))
