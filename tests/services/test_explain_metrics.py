"""Block residency from --kv-cache-metrics: "evicted N s before reuse" and the capacity to keep them."""

from __future__ import annotations

from datetime import datetime, timedelta

import pandas as pd
import pytest

from dashboard.services.explain import Residency, block_residency
from dashboard.services.overview import Selection, TimeRange
from dashboard.store.writes import write_samples

T0 = datetime(2026, 12, 3)


def histogram_rows(pod: str, name: str, count: float, total_s: float) -> list[tuple]:
    """Two scrapes of a histogram's _sum and _count: 0 at T0, (total, count) a minute later."""
    labels = {"pod": pod, "model_name": "m", "engine": "0"}
    return [
        (t, f"{name}{suffix}", labels, value)
        for t, values in ((T0, (0.0, 0.0)), (T0 + timedelta(minutes=1), (total_s, count)))
        for suffix, value in zip(("_sum", "_count"), values, strict=True)
    ]


def test_blocks_evicted_before_their_reuse_say_how_much_capacity_would_keep_them(store):
    rows = []
    for pod in ("vllm-0", "vllm-1"):
        rows += histogram_rows(pod, "vllm:kv_block_lifetime_seconds", 100, 3_000)  # mean 30 s
        rows += histogram_rows(pod, "vllm:kv_block_idle_before_evict_seconds", 50, 500)  # mean 10 s
        rows += histogram_rows(pod, "vllm:kv_block_reuse_gap_seconds", 20, 500)  # mean 25 s
        labels = {"pod": pod, "block_size": "16", "num_gpu_blocks": "1000", "model_name": "m", "engine": "0"}
        rows.append((T0, "vllm:cache_config_info", labels, 1.0))
    write_samples(store, pd.DataFrame(rows, columns=["ts", "metric", "labels", "value"]))
    tr = TimeRange(T0 - timedelta(seconds=15), T0 + timedelta(minutes=1), 60.0)
    r = block_residency(store, Selection(tr))
    assert (r.lifetime_s, r.idle_before_evict_s, r.reuse_gap_s) == (30.0, 10.0, 25.0)
    assert r.early_eviction_s == 15.0
    assert r.num_gpu_blocks == 2000 and r.blocks_to_keep == 3000  # 2000 × (30 + 15) / 30
    assert r.verdict().startswith("Blocks are evicted 15 s before they would have been reused")
    one_pod = block_residency(store, Selection(tr, pods=("vllm-1",)))
    assert one_pod.num_gpu_blocks == 1000 and one_pod.blocks_to_keep == 1500  # the filter applies


def test_blocks_reused_before_eviction_say_capacity_is_not_the_limit():
    r = Residency(lifetime_s=30.0, idle_before_evict_s=40.0, reuse_gap_s=5.0, num_gpu_blocks=100)
    assert r.early_eviction_s is None and r.blocks_to_keep is None
    assert "not the limit" in r.verdict()


@pytest.mark.parametrize("missing", ["reuse_gap_s", "idle_before_evict_s"])
def test_without_residency_histograms_there_is_no_verdict(missing):
    values = {"lifetime_s": 30.0, "idle_before_evict_s": 10.0, "reuse_gap_s": 25.0, "num_gpu_blocks": 1}
    r = Residency(**{**values, missing: None})
    assert r.blocks_to_keep is None and r.verdict().startswith("No block evictions")


def test_connector_health_reads_offload_failures_and_lmcache_evictions_per_second(store):
    from dashboard.services.explain import connector_health

    labels = {"pod": "vllm-0", "model_name": "m", "engine": "0"}
    rows = [
        (T0 + timedelta(minutes=m), name, labels, value)
        for m, values in ((0, (0.0, 0.0, 0.0, 0.0)), (1, (6.0, 120.0, 0.3, 60.0)))
        for name, value in zip(
            (
                "vllm:kv_offload_allocation_failure_total",
                "lmcache:local_cpu_evict_count_total",
                "vllm:kv_offload_lookup_sync_delay_seconds_sum",
                "vllm:kv_offload_lookup_sync_delay_seconds_count",
            ),
            values,
            strict=True,
        )
    ]
    write_samples(store, pd.DataFrame(rows, columns=["ts", "metric", "labels", "value"]))
    tr = TimeRange(T0 + timedelta(minutes=1), T0 + timedelta(minutes=1), 240.0)  # 4 scrape intervals
    got = connector_health(store, Selection(tr)).set_index("series")["value"]
    assert got["offload allocation failures"] == pytest.approx(6 / 240)
    assert got["LMCache CPU evictions"] == pytest.approx(120 / 240)
    assert got["offload lookup delay (sync)"] == pytest.approx(0.005)
