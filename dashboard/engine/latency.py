"""Latency model constants from the hardware/model profiles, and the timing heaps of the kernel."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from dashboard.core import profiles

# NOTE: datacenter PCIe Gen4/Gen5 NVMe SSDs read about 7 GB/s sequentially (e.g. Samsung PM1743
# and Kioxia CM7 datasheets: 13-14 GB/s Gen5, ~7 GB/s Gen4); we use the Gen4 figure for disk hits.
DISK_READ_BYTES_PER_S = 7e9


# NOTE: the request overhead terms come from the GPU-hit TTFTs of one public run, where prefill
# compute is nearly nil: 41.8 ms (p50) at a 1,024-token fully cached prompt, 111 ms at 65,536 tokens
# (vLLM 0.18.1, one H20, Qwen3-Coder-30B-A3B; agentic-kvc "three-tier KV-hit latency microbench",
# v2/exp_a_tier_latency/results/gpu.json, https://gitea.gahow.org/gahow/agentic-kvc/src/commit/
# 837df6bc9e05f5a5b4af27a36356efdd4cff2ecd). The fixed part is HTTP, scheduling and the one forward
# step vLLM always runs (it recomputes the last prompt token even on a full hit); the per-token part is
# what grows with the prompt whatever the cache holds (tokenizing, block hashing, the cache lookup).
# NOTE: that run used --enforce-eager (no CUDA graphs) on a 48-layer model, so the fixed part is an
# upper bound for a CUDA-graph deployment of a small model (a 0.6B model's step is a few ms).
REQUEST_OVERHEAD_S = 0.0407  # 41.8 ms − 1,024 × HOST_S_PER_PROMPT_TOKEN
HOST_S_PER_PROMPT_TOKEN = 1.07e-6  # (111 ms − 41.8 ms) / (65,536 − 1,024) tokens


@dataclass(frozen=True)
class LatencyModel:
    """Costs of one request: fixed overhead, per prompt token, prefill compute, attention, loads and decode.

    prefill(u uncached of n prompt tokens) = overhead + host × n + linear × u + attention × u × (n − u + u/2):
    each new token attends to the cached context and, causally, to half of the other new ones, so
    a long miss costs more than linearly (attention_s_per_token_pair × n²/2).
    """

    prefill_s_per_token: float
    decode_s_per_token: float
    cpu_load_s_per_token: float
    disk_load_s_per_token: float
    request_overhead_s: float = 0.0
    host_s_per_prompt_token: float = 0.0
    attention_s_per_token_pair: float = 0.0

    def as_array(self) -> np.ndarray:
        """The constants in kernel order (prefill_seconds reads indexes 0, 4, 5 and 6)."""
        return np.array(
            [
                self.prefill_s_per_token,
                self.decode_s_per_token,
                self.cpu_load_s_per_token,
                self.disk_load_s_per_token,
                self.request_overhead_s,
                self.host_s_per_prompt_token,
                self.attention_s_per_token_pair,
            ],
            np.float64,
        )

    def ttft_s(self, num_prompt_tokens: float, num_gpu_hit: float = 0.0, num_cpu_hit: float = 0.0) -> float:
        """TTFT of one request on an idle pod: CPU-tier load plus prefill of what no tier held."""
        num_uncached = num_prompt_tokens - num_gpu_hit - num_cpu_hit
        lat = self.as_array()
        return num_cpu_hit * self.cpu_load_s_per_token + float(
            prefill_seconds(lat, float(num_uncached), float(num_prompt_tokens))  # one compiled signature
        )


def latency_model(hardware: str, model: str) -> LatencyModel:
    """Costs of model on hardware from the profiles (every constant's source is in core/profiles.py)."""
    hw, m = profiles.hardware(hardware), profiles.model(model)
    return LatencyModel(
        prefill_s_per_token=profiles.prefill_seconds(hw, m, 1.0),
        decode_s_per_token=profiles.decode_seconds_per_token(hw, m),
        cpu_load_s_per_token=profiles.load_seconds(hw, m, 1.0),
        disk_load_s_per_token=m.kv_bytes_per_token / DISK_READ_BYTES_PER_S,
        request_overhead_s=REQUEST_OVERHEAD_S,
        host_s_per_prompt_token=HOST_S_PER_PROMPT_TOKEN,
        attention_s_per_token_pair=profiles.attention_seconds_per_token_pair(hw, m),
    )


@njit(cache=True)
def prefill_seconds(lat: np.ndarray, num_uncached: float, num_prompt: float) -> float:
    """Pod time to prefill num_uncached of num_prompt tokens (the rest cached): the kernel's one TTFT formula."""
    num_context = num_prompt - num_uncached
    return (
        lat[4]
        + lat[5] * num_prompt
        + lat[0] * num_uncached
        + lat[6] * num_uncached * (num_context + 0.5 * num_uncached)
    )


@njit(cache=True, inline="always")
def time_heap_push(
    ht: np.ndarray, hp: np.ndarray, hb: np.ndarray, size: int, t: float, pod: int, blocks: int
) -> int:
    """Push (t, pod, blocks) on a min-heap by t; returns the new size."""
    i = size
    ht[i], hp[i], hb[i] = t, pod, blocks
    while i > 0:
        parent = (i - 1) // 2
        if ht[parent] <= ht[i]:
            break
        ht[i], ht[parent] = ht[parent], ht[i]
        hp[i], hp[parent] = hp[parent], hp[i]
        hb[i], hb[parent] = hb[parent], hb[i]
        i = parent
    return size + 1


@njit(cache=True, inline="always")
def time_heap_pop(ht: np.ndarray, hp: np.ndarray, hb: np.ndarray, size: int) -> int:
    """Drop the earliest entry (read it at index 0 first); returns the new size."""
    last = size - 1
    ht[0], hp[0], hb[0] = ht[last], hp[last], hb[last]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= last:
            return last
        small = left
        if left + 1 < last and ht[left + 1] < ht[left]:
            small = left + 1
        if ht[i] <= ht[small]:
            return last
        ht[i], ht[small] = ht[small], ht[i]
        hp[i], hp[small] = hp[small], hp[i]
        hb[i], hb[small] = hb[small], hb[i]
        i = small
