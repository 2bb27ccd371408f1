"""The metrics that explain a hit rate, for the Overview: where prompt tokens came from, why
requests waited, and what the EPP predicted versus what the engines delivered (no Streamlit)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from dashboard.services.overview import Selection, window_params
from dashboard.store.db import Store
from dashboard.store.queries import run_query

FRAMES = ("prompt_sources", "waiting", "epp_predicted", "connector_health")  # windowed, by Selection


def prompt_sources(store: Store, sel: Selection) -> pd.DataFrame:
    """Prompt tokens/s by source and cached tokens/s by tier (ts, kind, source, tokens, tokens_per_s)."""
    return run_query(store, "overview_prompt_sources", **window_params(store, sel))


def waiting(store: Store, sel: Selection) -> pd.DataFrame:
    """Waiting requests by reason and preemptions/s over the selected pods (ts, series, value)."""
    return run_query(store, "overview_waiting", **window_params(store, sel))


def epp_predicted(store: Store, sel: Selection) -> pd.DataFrame:
    """EPP-predicted versus engine-delivered prefix hit rate (ts, series, hit_rate).

    Cluster-wide on purpose: the router predicts for the whole pool, so the pod filter does not apply.
    """
    params = window_params(store, sel)
    params.pop("pods")
    return run_query(store, "overview_epp_predicted", **params)


@dataclass(frozen=True)
class Residency:
    """GPU block residency over a range (vLLM --kv-cache-metrics), and what would keep reused blocks."""

    lifetime_s: float | None
    idle_before_evict_s: float | None
    reuse_gap_s: float | None
    num_gpu_blocks: int | None  # the cluster's configured GPU blocks

    @property
    def early_eviction_s(self) -> float | None:
        """How long before its next use a block is evicted on average (None: not evicted early)."""
        if self.reuse_gap_s is None or self.idle_before_evict_s is None:
            return None
        early = self.reuse_gap_s - self.idle_before_evict_s
        return early if early > 0 else None

    @property
    def blocks_to_keep(self) -> int | None:
        """GPU blocks that would keep blocks until their reuse.

        NOTE: Little's law: resident blocks = admission rate × mean lifetime, so living
        early_eviction_s longer at the same rate needs capacity × (lifetime + early) / lifetime.
        """
        early = self.early_eviction_s
        if early is None or not self.lifetime_s or not self.num_gpu_blocks:
            return None
        return math.ceil(self.num_gpu_blocks * (self.lifetime_s + early) / self.lifetime_s)

    def verdict(self) -> str:
        """One sentence for the operator."""
        if self.reuse_gap_s is None or self.idle_before_evict_s is None:
            return "No block evictions and reuses observed in this range."
        if self.early_eviction_s is None:
            return "Blocks are reused before they are evicted: GPU prefix-cache capacity is not the limit."
        keep = f" (about {self.blocks_to_keep:,} GPU blocks would keep them)" if self.blocks_to_keep else ""
        return (
            f"Blocks are evicted {self.early_eviction_s:,.0f} s before they would have been reused: "
            f"the cache is too small{keep}."
        )


def block_residency(store: Store, sel: Selection) -> Residency:
    """Mean lifetime, idle-before-evict and reuse gap over the range, with the selected pods' GPU blocks."""
    tr = sel.time_range
    whole = {"start": tr.end, "end": tr.end, "step": max(tr.length_s, 1.0), "pods": sel.pod_list}
    means = run_query(store, "overview_block_residency", **whole).set_index("measure")["mean_s"]
    blocks = run_query(store, "overview_capacity", pods=sel.pod_list)["num_gpu_blocks"].dropna()

    def mean(measure: str) -> float | None:
        return float(means[measure]) if measure in means.index else None

    return Residency(
        lifetime_s=mean("lifetime"),
        idle_before_evict_s=mean("idle_before_evict"),
        reuse_gap_s=mean("reuse_gap"),
        num_gpu_blocks=int(blocks.sum()) if len(blocks) else None,
    )


def connector_health(store: Store, sel: Selection) -> pd.DataFrame:
    """Offload lookup delays, allocation failures, skipped stores, LMCache counters (ts, series, unit, value)."""
    return run_query(store, "overview_connector_health", **window_params(store, sel))
