"""Replays for the CLI and the UI: build the cluster config, run the engine, summarize.

No pandas or DuckDB here: `kvscope replay` imports this, and its start-up time is budgeted
(storing results lives in services/saved_replays.py).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace

from dashboard.core import profiles
from dashboard.core.types import ClusterConfig, RouterConfig, TierConfig, Trace
from dashboard.engine.replay import simulate
from dashboard.engine.routers import router_info
from dashboard.engine.summary import ReplaySummary, summarize


@dataclass(frozen=True)
class ReplayRequest:
    """What to replay a trace through, as a user states it."""

    num_pods: int = 1
    router: str = "round_robin"
    policy: str = "lru"
    hbm_blocks: int | None = None
    hardware: str | None = None
    model: str | None = None
    cpu_blocks: int = 0
    disk_blocks: int = 0
    seed: int = 0
    scorer_weights: tuple[float, float, float] = (2.0, 2.0, 3.0)  # the EPP's queue, KV and prefix scorers


def cluster_config(req: ReplayRequest, block_tokens: int) -> ClusterConfig:
    """The engine's ClusterConfig for a request; HBM from --hbm-blocks or the hardware/model profiles."""
    if req.num_pods < 1:
        raise ValueError(f"--pods must be at least 1, got {req.num_pods}")
    router_info(req.router)
    hw_name, model_name = req.hardware or "h100-sxm", req.model or "llama-3.1-8b"
    if req.hbm_blocks is None:
        if req.hardware is None or req.model is None:
            raise ValueError("give --hbm-blocks N, or --hardware H and --model M to size HBM from profiles")
        hbm = profiles.hbm_kv_blocks(profiles.hardware(hw_name), profiles.model(model_name), block_tokens)
    else:
        hbm = req.hbm_blocks  # NOTE: --hardware/--model then give the latency model only
    tiers = [TierConfig("gpu", hbm, req.policy)]
    tiers += [TierConfig("cpu", req.cpu_blocks, req.policy)] if req.cpu_blocks else []
    tiers += [TierConfig("disk", req.disk_blocks, req.policy)] if req.disk_blocks else []
    return ClusterConfig(
        num_pods=req.num_pods,
        tiers=tuple(tiers),
        router=RouterConfig(req.router, *req.scorer_weights, seed=req.seed),
        hardware=hw_name,
        model=model_name,
    )


def run_replay(trace: Trace, req: ReplayRequest) -> ReplaySummary:
    """Replay trace under req and summarize it, timing the engine."""
    config = cluster_config(req, trace.block_tokens)
    started = time.perf_counter()
    outcome = simulate(trace, config)
    elapsed = time.perf_counter() - started
    summary = summarize(trace, outcome, config, elapsed_s=elapsed)
    effective = {
        "hbm_blocks": config.tiers[0].capacity_blocks,
        "hardware": config.hardware,
        "model": config.model,
    }
    return replace(summary, config=asdict(req) | effective)
