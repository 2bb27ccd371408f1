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
    price_per_gpu_hour: float | None = None  # USD; None = not known (the planner then needs a price)


@dataclass(frozen=True)
class ModelProfile:
    """Model shape: enough for KV bytes per token and prefill/decode cost."""

    name: str
    num_params: float
    num_layers: int
    num_kv_heads: int
    head_dim: int
    dtype_bytes: int = 2  # KV cache element size
    source: str = ""
    num_active_params: float | None = None  # mixture of experts: parameters used per token (None = dense)
    num_heads: int = 0  # query heads, for the attention cost (0 = as many as KV heads)
    weight_dtype_bytes: int | None = None  # None = dtype_bytes; 1 = FP8 weights (twice bf16's tensor rate)

    @property
    def kv_bytes_per_token(self) -> int:
        """2 (K and V) × layers × kv_heads × head_dim × dtype bytes."""
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * self.dtype_bytes

    @property
    def active_params(self) -> float:
        """Parameters each token passes through: all of them, or a mixture of experts' active ones."""
        return self.num_params if self.num_active_params is None else self.num_active_params

    @property
    def weight_bytes(self) -> int:
        """Bytes per weight."""
        return self.dtype_bytes if self.weight_dtype_bytes is None else self.weight_dtype_bytes


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
        cpu_dram_bytes=250 * GB,  # NOTE: a DGX H100/H200 has 2 TB of DDR5 for its 8 GPUs
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
        cpu_dram_bytes=250 * GB,  # NOTE: a DGX H100/H200 has 2 TB of DDR5 for its 8 GPUs
        link_h2d_bytes_per_s=54 * GB,
        link_nominal="PCIe Gen5 x16, 64 GB/s per direction (54 GB/s measured H2D)",
        source="NVIDIA H200 datasheet (141 GB HBM3e, 4.8 TB/s); PCIe Gen5 x16 as H100",
    ),
    "h20": HardwareProfile(
        name="h20",
        hbm_bytes=96 * GB,
        hbm_bandwidth_bytes_per_s=4.0e12,
        peak_bf16_flops=148e12,
        cpu_dram_bytes=250 * GB,  # NOTE: 8-GPU HGX H20 servers ship with about 2 TB of DDR5
        link_h2d_bytes_per_s=54 * GB,
        link_nominal="PCIe Gen5 x16, 64 GB/s per direction (53.7-54.9 GB/s measured H2D)",
        # NOTE: calibrated on one figure, the 64k-token miss (15.2 s) of the agentic-kvc tier benchmark
        # (see dashboard/engine/latency.py); the other published points are then predictions.
        mfu=0.47,
        source="NVIDIA H20 (96 GB HBM3, 4.0 TB/s, 148 TFLOPS bf16 dense); H2D 54 GB/s measured in "
        "agentic-kvc v2/exp_a_tier_latency/results/pcie.json "
        "(https://gitea.gahow.org/gahow/agentic-kvc/src/commit/837df6bc9e05f5a5b4af27a36356efdd4cff2ecd)",
    ),
}

MODELS: dict[str, ModelProfile] = {
    "qwen3-0.6b": ModelProfile(
        name="qwen3-0.6b",
        num_params=0.6e9,
        num_layers=28,
        num_kv_heads=8,
        head_dim=128,
        num_heads=16,
        source="Qwen/Qwen3-0.6B config.json (28 layers, 16 heads, 8 KV heads, head_dim 128, bf16)",
    ),
    "llama-3.1-8b": ModelProfile(
        name="llama-3.1-8b",
        num_params=8.0e9,
        num_layers=32,
        num_kv_heads=8,
        head_dim=128,
        num_heads=32,
        source="meta-llama/Llama-3.1-8B config.json (32 layers, 32 heads, 8 KV heads, head_dim 128)",
    ),
    "llama-3.1-70b": ModelProfile(
        name="llama-3.1-70b",
        num_params=70.6e9,
        num_layers=80,
        num_kv_heads=8,
        head_dim=128,
        num_heads=64,
        source="meta-llama/Llama-3.1-70B config.json (80 layers, 64 heads, 8 KV heads, head_dim 128)",
    ),
    "qwen3-coder-30b-a3b-fp8": ModelProfile(
        name="qwen3-coder-30b-a3b-fp8",
        num_params=30.5e9,
        num_active_params=3.3e9,
        num_layers=48,
        num_kv_heads=4,
        head_dim=128,
        num_heads=32,
        weight_dtype_bytes=1,
        source="Qwen/Qwen3-Coder-30B-A3B-Instruct model card and config.json (30.5B total, 3.3B active, "
        "48 layers, 32 heads, 4 KV heads, head_dim 128); FP8 weights, bf16 KV (96 KiB per token, as the "
        "agentic-kvc pcie.json's 100,663,296 bytes per 1,024 tokens)",
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


def prefill_flops_per_s(hw: HardwareProfile, m: ModelProfile) -> float:
    """FLOP/s reached in prefill: mfu × dense peak (FP8 weights run Hopper's tensor cores at twice bf16)."""
    return hw.peak_bf16_flops * hw.mfu * (2.0 if m.weight_bytes == 1 else 1.0)


def prefill_seconds(hw: HardwareProfile, m: ModelProfile, num_tokens: float) -> float:
    """Compute-bound prefill time of the weights: 2 × active params FLOPs per token."""
    return 2.0 * m.active_params * num_tokens / prefill_flops_per_s(hw, m)


def attention_seconds_per_token_pair(hw: HardwareProfile, m: ModelProfile) -> float:
    """Attention cost of one (new token, context token) pair: QKᵀ and PV, 4 × layers × heads × head_dim FLOPs."""
    heads = m.num_heads or m.num_kv_heads
    return 4.0 * m.num_layers * heads * m.head_dim / prefill_flops_per_s(hw, m)


def decode_seconds_per_token(hw: HardwareProfile, m: ModelProfile) -> float:
    """Memory-bound decode step: read the active weights once per token at HBM bandwidth."""
    return m.active_params * m.weight_bytes / hw.hbm_bandwidth_bytes_per_s


def load_seconds(hw: HardwareProfile, m: ModelProfile, num_tokens: float) -> float:
    """Time to bring num_tokens of KV from the CPU tier into HBM over the host link."""
    return m.kv_bytes_per_token * num_tokens / hw.link_h2d_bytes_per_s


def hbm_kv_blocks(hw: HardwareProfile, m: ModelProfile, block_tokens: int, kv_share: float = 0.9) -> int:
    """KV blocks that fit in HBM after the weights, using kv_share of the rest (vLLM's 0.9)."""
    free_bytes = max(hw.hbm_bytes * kv_share - m.num_params * m.weight_bytes, 0.0)
    return int(free_bytes // (m.kv_bytes_per_token * block_tokens))
