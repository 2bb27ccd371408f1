"""A small, realistic store for page tests: 3 pods, 1 hour of 15 s scrapes, every Overview metric."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd

from dashboard.store.db import open_store
from dashboard.store.writes import write_annotations, write_samples

T0 = datetime(2026, 11, 30)
PODS = ("pod-0", "pod-1", "pod-2")
TTFT_LE = ("0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5", "1.0", "+Inf")


def _pod_rows(rng: np.random.Generator, pod: str, num_scrapes: int) -> list[tuple]:
    base = {"pod": pod, "model_name": "qwen3-0.6b", "engine": "0"}
    ts = [T0 + timedelta(seconds=15 * i) for i in range(num_scrapes)]
    queries = np.cumsum(rng.integers(20_000, 40_000, num_scrapes)).astype(float)
    hits = np.floor(queries * np.linspace(0.3, 0.8, num_scrapes))
    hits = np.maximum.accumulate(hits)
    reqs = np.cumsum(rng.integers(5, 15, num_scrapes)).astype(float)
    rows = []
    for i, t in enumerate(ts):
        rows += [
            (t, "vllm:prefix_cache_queries_total", base, queries[i]),
            (t, "vllm:prefix_cache_hits_total", base, hits[i]),
            (t, "vllm:external_prefix_cache_queries_total", base, queries[i] - hits[i]),
            (t, "vllm:external_prefix_cache_hits_total", base, 0.1 * (queries[i] - hits[i])),
            (t, "vllm:kv_cache_usage_perc", base, float(rng.uniform(0.2, 0.9))),
            (t, "vllm:kv_offload_store_bytes_total", base, 1e6 * i),
            (t, "vllm:kv_offload_load_bytes_total", base, 4e5 * i),
            (t, "vllm:cache_config_info", {**base, "block_size": "64", "num_gpu_blocks": "2000"}, 1.0),
            (t, "vllm:kv_offload_config_info", {**base, "cpu_kv_cache_size_tokens": "512000"}, 1.0),
        ]
        for j, le in enumerate(TTFT_LE):
            share = min(1.0, (j + 1) / (len(TTFT_LE) - 1))
            rows.append(
                (t, "vllm:time_to_first_token_seconds_bucket", {**base, "le": le}, np.floor(reqs[i] * share))
            )
        rows.append(
            (
                t,
                "llm_d_epp_scheduler_attempts_total",
                {"pod": "epp-0", "endpoint_name": pod, "status": "success"},
                reqs[i],
            )
        )
    return rows


def build_store(path: Path, seed: int = 7, num_scrapes: int = 240) -> Path:
    """Write the fixture store at path and return the path."""
    rng = np.random.default_rng(seed)
    rows = [r for pod in PODS for r in _pod_rows(rng, pod, num_scrapes)]
    store = open_store(path)
    write_samples(store, pd.DataFrame(rows, columns=["ts", "metric", "labels", "value"]))
    write_annotations(
        store,
        pd.DataFrame(
            {
                "ts": [T0 + timedelta(minutes=20)],
                "kind": ["routing"],
                "text": ["switched to prefix-aware routing"],
            }
        ),
    )
    store.close()
    return path
