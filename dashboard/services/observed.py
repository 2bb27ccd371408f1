"""Observed versus replayed: the stored requests replayed through the configuration the metrics
describe, beside what the metrics observed, window by window (no Streamlit).

Each pod is replayed on its own with the requests the router really sent it, its configured
HBM and CPU-tier blocks (`vllm:cache_config_info`, `vllm:kv_offload_config_info`), vLLM's LRU and
its restarts (counter resets): the router is taken as observed, so a gap is the cache and the
latency model, not routing. TTFT quantiles of the replay go through the same buckets and linear
interpolation as the observed histogram, so binning is no part of the gap.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pandas as pd

from dashboard.core import profiles
from dashboard.core.types import ClusterConfig, ClusterEvent, RouterConfig, TierConfig
from dashboard.engine.readers.canonical import build_trace
from dashboard.engine.replay import simulate
from dashboard.services.overview import Selection, capacity, hit_rate, ttft_quantiles, window_params
from dashboard.sim.exporter import TTFT_BUCKETS
from dashboard.store.db import Store
from dashboard.store.queries import run_query

MEASURES = ("GPU hit rate", "offload hit rate", "TTFT p50", "TTFT p99")
HIT_GAP_OK = 0.03  # absolute hit rate: within this, the cache model explains what was observed
TTFT_GAP_OK = 0.25  # relative TTFT gap


@dataclass(frozen=True)
class ObservedVsReplayed:
    """Both sides per window, the mean gap per measure, and what the gaps mean."""

    frame: pd.DataFrame  # ts, measure, source ('observed' | 'replayed'), value
    config_text: str
    gaps: dict[str, float]  # measure -> mean (replayed − observed); TTFT relative to observed
    verdicts: tuple[str, ...]


def compare(store: Store, sel: Selection, hardware: str, model: str) -> ObservedVsReplayed | None:
    """Replay the stored requests through the observed configuration; None without requests."""
    requests = run_query(store, "observed_requests", end=sel.time_range.end)
    caps = capacity(store, Selection(sel.time_range))
    if requests.empty or caps.empty:
        return None
    replayed = _replay_by_pod(store, requests, caps, sel, hardware, model)
    selected = replayed[replayed.pod.isin(sel.pods)] if sel.pods else replayed
    window_s = window_params(store, sel)["step"]
    observed = _observed(store, sel)
    frame = pd.concat([observed, _windows(selected, sorted(observed.ts.unique()), window_s)])
    gaps = _gaps(frame)
    return ObservedVsReplayed(frame, _config_text(caps, hardware, model), gaps, _verdicts(gaps))


def _replay_by_pod(store, requests, caps, sel, hardware, model) -> pd.DataFrame:
    resets = run_query(store, "findings_counter_resets", start=requests.ts.min(), end=sel.time_range.end)
    t0 = requests.ts.min()
    parts = []
    for pod, rows in requests.groupby("pod", sort=True):
        cap = caps[caps.pod == pod]
        if cap.empty or pd.isna(cap.num_gpu_blocks.iloc[0]):
            continue
        config = _pod_config(cap.iloc[0], int(rows.block_tokens.iloc[0]), hardware, model)
        restarts = tuple(
            ClusterEvent((ts - t0).total_seconds(), "restart", pod=0)
            for ts in sorted(resets[resets.pod == pod].ts.unique())
        )
        outcome = simulate(_trace(rows, t0), config, restarts)
        parts.append(
            pd.DataFrame(
                {
                    "ts": rows.ts.to_numpy(),
                    "pod": pod,
                    "input_tokens": rows.input_tokens.to_numpy(),
                    "gpu_tokens": outcome.cached_tokens[:, 0],
                    "lower_tokens": outcome.cached_tokens[:, 1:].sum(axis=1),
                    "ttft_s": outcome.ttft_s,
                }
            )
        )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["ts", "pod"])


def _pod_config(cap: pd.Series, block_tokens: int, hardware: str, model: str) -> ClusterConfig:
    tiers = [TierConfig("gpu", int(cap.num_gpu_blocks))]
    if not pd.isna(cap.cpu_capacity_tokens) and cap.cpu_capacity_tokens > 0:
        tiers.append(TierConfig("cpu", int(cap.cpu_capacity_tokens) // block_tokens))
    return ClusterConfig(1, tuple(tiers), RouterConfig("round_robin"), hardware, model)


def _trace(rows: pd.DataFrame, t0: pd.Timestamp):
    blocks = rows.block_ids.to_list()
    return build_trace(
        arrival_s=(rows.ts - t0).dt.total_seconds().to_numpy(np.float64),
        block_counts=np.fromiter((len(b) for b in blocks), np.int64, len(blocks)),
        raw_block_ids=np.concatenate(blocks).astype(np.int64),
        input_tokens=rows.input_tokens.to_numpy(np.int64),
        output_tokens=rows.output_tokens.to_numpy(np.int64),
        block_tokens=int(rows.block_tokens.iloc[0]),
        source="stored requests",
    )


def _observed(store: Store, sel: Selection) -> pd.DataFrame:
    rates = hit_rate(store, sel)
    rates = rates[rates.pod == "*"]
    tiers = {"gpu": "GPU hit rate", "offload": "offload hit rate"}
    hits = pd.DataFrame({"ts": rates.ts, "measure": rates.tier.map(tiers), "value": rates.hit_rate})
    ttft = ttft_quantiles(store, sel)
    ttft = ttft[ttft.q.isin([0.5, 0.99])]
    quantiles = pd.DataFrame(
        {"ts": ttft.ts, "measure": ttft.q.map({0.5: "TTFT p50", 0.99: "TTFT p99"}), "value": ttft.ttft_s}
    )
    return pd.concat([hits, quantiles]).dropna().assign(source="observed")


def _windows(replayed: pd.DataFrame, grid: list[datetime], window_s: float) -> pd.DataFrame:
    rows = []
    for ts in grid:
        inside = replayed[(replayed.ts > ts - pd.Timedelta(seconds=window_s)) & (replayed.ts <= ts)]
        if inside.empty:
            continue
        asked = inside.input_tokens.sum()
        offload_asked = asked - inside.gpu_tokens.sum()
        rows += [
            (ts, "GPU hit rate", inside.gpu_tokens.sum() / asked if asked else np.nan),
            (ts, "offload hit rate", inside.lower_tokens.sum() / offload_asked if offload_asked else np.nan),
            (ts, "TTFT p50", bucket_quantile(inside.ttft_s.to_numpy(), 0.5)),
            (ts, "TTFT p99", bucket_quantile(inside.ttft_s.to_numpy(), 0.99)),
        ]
    return pd.DataFrame(rows, columns=["ts", "measure", "value"]).dropna().assign(source="replayed")


def bucket_quantile(values: np.ndarray, q: float, bounds: tuple[float, ...] = TTFT_BUCKETS) -> float:
    """The q-quantile of values counted into histogram buckets, interpolated like histogram_quantile."""
    counts = np.searchsorted(np.asarray(bounds), values, side="left")  # bucket index with le ≥ value
    cumulative = np.cumsum(np.bincount(counts, minlength=len(bounds) + 1))
    total = cumulative[-1]
    if total == 0:
        return float("nan")
    rank = q * total
    i = int(np.searchsorted(cumulative, rank, side="left"))
    if i >= len(bounds):
        return float(bounds[-1])  # the +Inf bucket returns the highest finite bound
    lower = bounds[i - 1] if i > 0 else 0.0
    below = cumulative[i - 1] if i > 0 else 0
    in_bucket = cumulative[i] - below
    return float(lower + (bounds[i] - lower) * (rank - below) / in_bucket)


def _gaps(frame: pd.DataFrame) -> dict[str, float]:
    wide = frame.pivot_table(index=["ts", "measure"], columns="source", values="value").dropna()
    gaps = {}
    for measure, rows in wide.groupby(level="measure"):
        diff = rows.replayed - rows.observed
        gaps[measure] = float((diff / rows.observed).mean() if measure.startswith("TTFT") else diff.mean())
    return gaps


def _verdicts(gaps: dict[str, float]) -> tuple[str, ...]:
    out = []
    gpu = gaps.get("GPU hit rate")
    if gpu is not None:
        if abs(gpu) <= HIT_GAP_OK:
            out.append(
                f"GPU hit rate: replay within {abs(gpu) * 100:.2f} points — the configured cache explains it."
            )
        elif gpu > 0:
            out.append(
                f"GPU hit rate: replay {gpu * 100:.1f} points higher — the engines keep fewer reusable "
                "blocks than configured (running requests hold blocks, other tenants share HBM) or evict "
                "differently from LRU."
            )
        else:
            out.append(
                f"GPU hit rate: replay {-gpu * 100:.1f} points lower — the engines reuse more than these "
                "requests explain (requests missing from the stored trace, or a larger cache than configured)."
            )
    ttft = gaps.get("TTFT p99")
    if ttft is not None:
        if abs(ttft) <= TTFT_GAP_OK:
            out.append(f"TTFT p99: replay within {abs(ttft) * 100:.0f}% — the latency profile fits.")
        else:
            side = "under" if ttft < 0 else "over"
            out.append(
                f"TTFT p99: the replay is {abs(ttft) * 100:.0f}% {side} the observed — the hardware/model "
                "profile or queueing (batching, decode interference) differ from the latency model."
            )
    return tuple(out)


def _config_text(caps: pd.DataFrame, hardware: str, model: str) -> str:
    gpu = caps.num_gpu_blocks.dropna()
    cpu = (caps.cpu_capacity_tokens / caps.block_size).dropna()
    tiers = f"HBM {int(gpu.median()):,}" + (f" + CPU {int(cpu.median()):,}" if len(cpu) else "")
    return (
        f"{len(caps)} pods × ({tiers} blocks), LRU, requests routed as observed, "
        f"{profiles.model(model).name} on {profiles.hardware(hardware).name}"
    )
