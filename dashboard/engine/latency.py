"""Latency model constants from the hardware/model profiles, and the timing heaps of the kernel."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from dashboard.core import profiles

# NOTE: datacenter PCIe Gen4/Gen5 NVMe SSDs read about 7 GB/s sequentially (e.g. Samsung PM1743
# and Kioxia CM7 datasheets: 13-14 GB/s Gen5, ~7 GB/s Gen4); we use the Gen4 figure for disk hits.
DISK_READ_BYTES_PER_S = 7e9


@dataclass(frozen=True)
class LatencyModel:
    """Per-token costs: prefill compute, decode step, CPU→HBM load and disk→HBM load."""

    prefill_s_per_token: float
    decode_s_per_token: float
    cpu_load_s_per_token: float
    disk_load_s_per_token: float

    def as_array(self) -> np.ndarray:
        """The four constants in kernel order."""
        return np.array(
            [self.prefill_s_per_token, self.decode_s_per_token, self.cpu_load_s_per_token,
             self.disk_load_s_per_token], np.float64,
        )


def latency_model(hardware: str, model: str) -> LatencyModel:
    """Per-token costs of model on hardware (profiles.prefill_seconds etc. are linear in tokens)."""
    hw, m = profiles.hardware(hardware), profiles.model(model)
    return LatencyModel(
        prefill_s_per_token=profiles.prefill_seconds(hw, m, 1.0),
        decode_s_per_token=profiles.decode_seconds_per_token(hw, m),
        cpu_load_s_per_token=profiles.load_seconds(hw, m, 1.0),
        disk_load_s_per_token=m.kv_bytes_per_token / DISK_READ_BYTES_PER_S,
    )


@njit(cache=True)
def time_heap_push(ht: np.ndarray, hp: np.ndarray, hb: np.ndarray, size: int, t: float, pod: int, blocks: int) -> int:
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


@njit(cache=True)
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
