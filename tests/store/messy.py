"""A seeded, deliberately awkward metric history for the sample-block tests: jittered and missing
scrapes, counter restarts, NaN and ±Inf samples, two name variants on one pod, non-monotone buckets."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pandas as pd

T0 = datetime(2026, 3, 2, 0, 7, 30)  # not on any block edge
HOURS = 3.0
LE = ("0.1", "0.5", "1.0", "+Inf")


def messy_frame(seed: int = 7) -> pd.DataFrame:
    """Rows (ts, metric, labels, value) of three pods and an EPP over HOURS."""
    rng = np.random.default_rng(seed)
    rows: list[tuple] = []
    for pod in ("a", "b", "c"):
        names = ["vllm:prefix_cache"] + (["vllm:gpu_prefix_cache"] if pod == "c" else [])
        stamps = _stamps(rng, jitter=pod != "a")
        for name in names:
            hits = _counter(rng, stamps, 200)
            queries = _counter(rng, stamps, 400)
            rows += _rows(stamps, f"{name}_hits_total", {"pod": pod}, np.minimum(hits, queries), rng)
            rows += _rows(stamps, f"{name}_queries_total", {"pod": pod}, queries, rng)
        counts = _counter(rng, stamps, 3)
        for i, le in enumerate(LE):
            share = (i + 1) / len(LE)
            values = np.floor(counts * share) - (rng.uniform(size=len(stamps)) < 0.02)  # some dip
            rows += _rows(
                stamps, "vllm:time_to_first_token_seconds_bucket", {"pod": pod, "le": le}, values, rng
            )
        rows += _rows(stamps, "vllm:kv_cache_usage_perc", {"pod": pod}, rng.uniform(size=len(stamps)), rng)
        rows += _rows(
            stamps,
            "llm_d_epp_scheduler_attempts_total",
            {"pod": "epp", "endpoint_name": pod, "status": "success"},
            _counter(rng, stamps, 2),
            rng,
        )
    return pd.DataFrame(rows, columns=["ts", "metric", "labels", "value"])


def _stamps(rng: np.random.Generator, jitter: bool) -> list[datetime]:
    """15 s scrapes over HOURS with some missing (an outage) and, if jitter, ±2 s of jitter."""
    n = int(HOURS * 240)
    offsets = np.arange(n) * 15.0 + (rng.uniform(-2, 2, n) if jitter else 0.0)
    keep = rng.uniform(size=n) > 0.03
    keep[200:230] = False  # a 7.5 min gap
    return [T0 + timedelta(seconds=round(float(s), 3)) for s in offsets[keep]]


def _counter(rng: np.random.Generator, stamps: list[datetime], mean: float) -> np.ndarray:
    """Whole-number increments; the process restarts twice (the counter starts again from 0)."""
    values = np.cumsum(rng.poisson(mean, len(stamps))).astype(float)
    for cut in sorted(rng.integers(10, len(stamps) - 10, 2)):
        values[cut:] -= values[cut - 1]
    return values


def _rows(stamps, metric: str, labels: dict, values: np.ndarray, rng: np.random.Generator) -> list[tuple]:
    """One row per stamp; about 1% of samples are NaN, +Inf or −Inf instead."""
    bad = rng.choice([np.nan, np.inf, -np.inf], len(stamps))
    values = np.where(rng.uniform(size=len(stamps)) < 0.01, bad, values)
    return [(ts, metric, dict(labels), float(v)) for ts, v in zip(stamps, values, strict=True)]
