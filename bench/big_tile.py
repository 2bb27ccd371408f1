"""One simulated day of an 8-pod cluster with every catalog family, the tile the big store repeats.

The day is the sample's story at 24 h (round robin, then prefix-aware routing at 8 h, pod vllm-3
restarting at 16 h, a burst at 20 h), replayed once by the engine and exported twice: with vLLM's
OffloadingConnector and with LMCache as the CPU tier. The families the simulator does not export
are added per request, from the same replay: block residency histograms (`--kv-cache-metrics`,
one observation per 100 evicted blocks), offload lookup delays, allocation failures and skipped
stores (OffloadingConnector), LMCache lookups and CPU evictions. Their values are synthetic
(seeded lognormals), their timing and volume follow the replay.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from dashboard.sim.dialects import Dialect
from dashboard.sim.exporter import Series, counter, export_series, le_label, metric_name
from dashboard.sim.scenario import Story, sample_story

TILE_HOURS = 24.0
RESIDENCY_BUCKETS = (0.1, 1.0, 10.0, 60.0, 300.0, 1800.0)  # a coarse cut of vLLM's 0.001 … 1800
SYNC_DELAY_BUCKETS = (1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0)
ASYNC_DELAY_BUCKETS = (1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0)


@dataclass(frozen=True)
class Tile:
    """The day's series at its scrape times: each pod under both connectors, and the EPP."""

    scrape_s: np.ndarray
    offloading: list[list[Series]]  # per base pod
    lmcache: list[list[Series]]
    residency: list[list[Series]]  # per base pod, for the pods started with --kv-cache-metrics
    epp: list[Series]
    restarts: tuple[tuple[float, int], ...]


def build_tile(seed: int = 0) -> Tile:
    """Simulate the day once and export it in both connector dialects, with the extra families."""
    story = sample_story(seed=seed, hours=TILE_HOURS)
    num_pods = story.config.num_pods
    lmcache_spec = replace(story.spec, dialect=Dialect(connector="lmcache"))
    lmcache = export_series(story.trace, story.outcome, story.config, lmcache_spec, story.scrape_s)
    rng = np.random.default_rng(seed)
    offloading, lm, residency = [], [], []
    for pod in range(num_pods):
        name = story.spec.pod_names[pod]
        offloading.append(_of_pod(story.series, name) + _offload_extras(story, pod, rng))
        lm.append(_of_pod(lmcache, name) + _lmcache_extras(story, pod, rng))
        residency.append(residency_series(story, pod, rng))
    epp = [s for s in story.series if s.labels.get("pod") == story.spec.epp_pod]
    return Tile(story.scrape_s, offloading, lm, residency, epp, story.spec.restarts)


def residency_series(story: Story, pod: int, rng: np.random.Generator) -> list[Series]:
    """vllm:kv_block_*_seconds histograms (--kv-cache-metrics): one observation per 100 evictions."""
    out = story.outcome
    mine = out.pod == pod
    sampled = rng.binomial(out.stored_blocks[mine].astype(np.int64), 0.01)
    events = np.repeat(_first_token(story)[mine], sampled)
    rows = []
    for key, mean_s in (
        ("kv_block_lifetime", 240.0),
        ("kv_block_idle_before_evict", 90.0),
        ("kv_block_reuse_gap", 400.0),
    ):
        values = rng.lognormal(np.log(mean_s), 0.8, len(events))
        rows += _histogram(story, pod, metric_name(key), events, values, RESIDENCY_BUCKETS)
    return rows


def _offload_extras(story: Story, pod: int, rng: np.random.Generator) -> list[Series]:
    events = _first_token(story)[story.outcome.pod == pod]
    rows = _histogram(
        story,
        pod,
        metric_name("kv_offload_lookup_sync_delay"),
        events,
        rng.lognormal(np.log(2e-4), 0.7, len(events)),
        SYNC_DELAY_BUCKETS,
    )
    deferred = events[rng.uniform(size=len(events)) < 0.05]
    rows += _histogram(
        story,
        pod,
        metric_name("kv_offload_lookup_async_delay"),
        deferred,
        rng.lognormal(np.log(5e-3), 0.9, len(deferred)),
        ASYNC_DELAY_BUCKETS,
    )
    failures = (rng.uniform(size=len(events)) < 0.002).astype(np.float64)
    rows.append(_counter(story, pod, metric_name("kv_offload_allocation_failures"), events, failures))
    rows.append(_counter(story, pod, metric_name("kv_offload_stores_skipped"), events, np.zeros(len(events))))
    return rows


def _lmcache_extras(story: Story, pod: int, rng: np.random.Generator) -> list[Series]:
    out, tr = story.outcome, story.trace
    mine = out.pod == pod
    events = _first_token(story)[mine]
    requested = (tr.input_tokens[mine] - out.cached_tokens[mine, 0]).astype(np.float64)
    hit = out.cached_tokens[mine, 1:].sum(axis=1).astype(np.float64)
    stored = out.stored_blocks[mine].astype(np.float64)
    extra = {"worker_id": "0", "role": "worker", "served_model_name": story.spec.model_name}
    return [
        _counter(story, pod, metric_name("lmcache_lookup_tokens"), events, requested, extra),
        _counter(story, pod, metric_name("lmcache_lookup_hits"), events, hit, extra),
        # NOTE: a full LRU tier evicts about what it stores; a quarter of stores while it fills up.
        _counter(story, pod, metric_name("lmcache_cpu_evictions"), events, np.floor(stored * 0.25), extra),
    ]


def _histogram(story, pod, name, events, values, bounds) -> list[Series]:
    rows = [
        _counter(story, pod, f"{name}_bucket", events, (values <= b).astype(np.float64), {"le": le_label(b)})
        for b in (*bounds, float("inf"))
    ]
    rows.append(_counter(story, pod, f"{name}_sum", events, values))
    rows.append(_counter(story, pod, f"{name}_count", events, np.ones_like(values)))
    return rows


def _counter(story, pod, name, events, weight, extra=None) -> Series:
    resets = np.array([t for t, p in story.spec.restarts if p == pod], np.float64)
    return Series(name, _labels(story, pod) | (extra or {}), counter(events, weight, story.scrape_s, resets))


def _labels(story: Story, pod: int) -> dict[str, str]:
    spec = story.spec
    return {
        "pod": spec.pod_names[pod],
        "model_name": spec.model_name,
        "engine": "0",
        "namespace": spec.namespace,
    }


def _first_token(story: Story) -> np.ndarray:
    return story.trace.arrival_s + story.outcome.ttft_s


def _of_pod(series: list[Series], pod: str) -> list[Series]:
    return [s for s in series if s.labels.get("pod") == pod]
