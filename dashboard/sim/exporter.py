"""What Prometheus would scrape from a replayed cluster: vLLM per pod, the EPP, optionally LMCache.

Series are computed in vLLM 0.34 / llm-d-router ≥ 0.9 naming and then renamed to the versions the
ExportSpec names (dashboard/sim/dialects.py). With the LMCache connector the CPU tier is LMCache's: its
retrieve counters and resident bytes replace vLLM's OffloadingConnector metrics.

Counters grow when a request reaches its first token (prompt, prefix-cache, tier, TTFT and offload
counters) or finishes (generation tokens, successes); a pod restart sets that pod's counters back
to zero. Gauges are sampled at each scrape. Everything is vectorised over requests and scrapes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dashboard.core import catalog, profiles
from dashboard.core.types import ClusterConfig, ReplayOutcome, Trace
from dashboard.sim.dialects import Dialect, epp_dialect, vllm_dialect

TTFT_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
    640.0,
    2560.0,
)  # vllm/v1/metrics/buckets.py
PREFIX_RATIO_BUCKETS = tuple(round(0.1 * i, 1) for i in range(11))  # llm-d EPP: 0, 0.1 … 1
TOKEN_BUCKETS = (0.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0)


def metric_name(key: str) -> str:
    """The newest exposed name of catalog metric key: the simulator speaks the catalog's names."""
    return catalog.spec(key).names[0]


@dataclass(frozen=True)
class Series:
    """One exported series: its name, labels and a value per scrape."""

    metric: str
    labels: dict[str, str]
    values: np.ndarray


@dataclass(frozen=True)
class ExportSpec:
    """Names and labels of the exported cluster."""

    pod_names: tuple[str, ...]
    epp_pod: str = "epp-0"
    model_name: str = "llama-3.1-8b"
    namespace: str = "llm-d"
    restarts: tuple[tuple[float, int], ...] = ()  # (time_s, pod)
    dialect: Dialect = Dialect()


def le_label(bound: float) -> str:
    """Bucket bound as prometheus_client renders it ('0.1', '1.0', '+Inf')."""
    return "+Inf" if bound == float("inf") else repr(float(bound))


def counter(event_s: np.ndarray, weight: np.ndarray, scrape_s: np.ndarray, reset_s: np.ndarray) -> np.ndarray:
    """Cumulative sum of weight for events ≤ each scrape, restarting from 0 at the last reset before it."""
    order = np.argsort(event_s, kind="stable")
    times, cum = event_s[order], np.concatenate([[0.0], np.cumsum(weight[order], dtype=np.float64)])
    upto = cum[np.searchsorted(times, scrape_s, side="right")]
    last_reset = _last_reset(reset_s, scrape_s)
    return upto - cum[np.searchsorted(times, last_reset, side="right")]


def in_flight(start_s: np.ndarray, end_s: np.ndarray, weight: np.ndarray, scrape_s: np.ndarray) -> np.ndarray:
    """Sum of weight over intervals [start, end) containing each scrape time."""

    def cum_at(times: np.ndarray) -> np.ndarray:
        order = np.argsort(times, kind="stable")
        cum = np.concatenate([[0.0], np.cumsum(weight[order], dtype=np.float64)])
        return cum[np.searchsorted(times[order], scrape_s, side="right")]

    return cum_at(start_s) - cum_at(end_s)


def _last_reset(reset_s: np.ndarray, scrape_s: np.ndarray) -> np.ndarray:
    if reset_s.size == 0:
        return np.full(scrape_s.shape, -np.inf)
    resets = np.sort(reset_s)
    idx = np.searchsorted(resets, scrape_s, side="right") - 1
    return np.where(idx >= 0, resets[np.maximum(idx, 0)], -np.inf)


def pod_series(
    trace: Trace, out: ReplayOutcome, config: ClusterConfig, spec: ExportSpec, pod: int, scrape_s: np.ndarray
) -> list[Series]:
    """Every vLLM series of one pod."""
    mine = out.pod == pod
    first_token = (trace.arrival_s + out.ttft_s)[mine]
    resets = np.array([t for t, p in spec.restarts if p == pod], np.float64)
    base = {
        "pod": spec.pod_names[pod],
        "model_name": spec.model_name,
        "engine": "0",
        "namespace": spec.namespace,
    }

    def at_first_token(metric: str, weight: np.ndarray, **extra: str) -> Series:
        return Series(
            metric, base | extra, counter(first_token, np.asarray(weight, np.float64), scrape_s, resets)
        )

    inp = trace.input_tokens[mine]
    cached = out.cached_tokens[mine]
    series = [
        at_first_token(metric_name("prompt_tokens"), inp),
        at_first_token(metric_name("prefix_cache_queries"), inp),
        at_first_token(metric_name("prefix_cache_hits"), cached[:, 0]),
    ]
    for source, column in (("device", 0), ("host", 1), ("disk", 2)):
        series.append(
            at_first_token(metric_name("prompt_tokens_cached_by_source"), cached[:, column], source=source)
        )
    # NOTE: vLLM ≥ 0.32's three sources add up to the prompt; the simulator never preempts, and
    # real vLLM exports the counter at 0 then too.
    for source, tokens in (
        ("local_compute", np.maximum(inp - cached.sum(axis=1), 0)),
        ("local_cache_hit", cached[:, 0]),
        ("external_kv_transfer", cached[:, 1:].sum(axis=1)),
    ):
        series.append(at_first_token(metric_name("prompt_tokens_by_source"), tokens, source=source))
    series.append(at_first_token(metric_name("num_preemptions"), np.zeros(len(inp))))
    if len(config.tiers) > 1:
        series += _offload_series(at_first_token, trace, out, config, spec, mine)
    series += _ttft_histogram(out.ttft_s[mine], first_token, scrape_s, resets, base)
    finish = out.finish_s[mine]
    series += [
        Series(
            metric_name("generation_tokens"),
            base,
            counter(finish, trace.output_tokens[mine].astype(np.float64), scrape_s, resets),
        ),
        Series(
            metric_name("request_success"),
            base | {"finished_reason": "stop"},
            counter(finish, np.ones(int(mine.sum())), scrape_s, resets),
        ),
    ]
    series += _gauges(trace, out, config, spec, pod, scrape_s, base)
    return vllm_dialect(series, spec.dialect.vllm)


def _offload_series(at_first_token, trace, out, config, spec, mine) -> list[Series]:
    """The KV connector's series: vLLM's external-hit counters, then the connector's own."""
    requested = trace.input_tokens[mine] - out.cached_tokens[mine, 0]
    hit = out.cached_tokens[mine, 1:].sum(axis=1)
    block_bytes = float(profiles.model(config.model).kv_bytes_per_token * trace.block_tokens)
    series = [
        at_first_token(metric_name("external_prefix_cache_queries"), requested),
        at_first_token(metric_name("external_prefix_cache_hits"), hit),
    ]
    if spec.dialect.connector == "lmcache":
        return series + _lmcache_series(
            at_first_token, requested, hit, out.stored_blocks[mine], trace, config, spec, block_bytes
        )
    load_bytes = out.hit_blocks[mine, 1:].sum(axis=1) * block_bytes
    store_bytes = out.stored_blocks[mine] * block_bytes
    link_bytes_per_s = profiles.hardware(config.hardware).link_h2d_bytes_per_s
    return series + [
        at_first_token(metric_name("kv_offload_load_bytes"), load_bytes),
        at_first_token(metric_name("kv_offload_load_time"), out.load_s[mine]),
        at_first_token(metric_name("kv_offload_store_bytes"), store_bytes),
        at_first_token(metric_name("kv_offload_store_time"), store_bytes / link_bytes_per_s),
    ]


def _lmcache_series(
    at_first_token, requested, hit, stored_blocks, trace, config, spec, block_bytes: float
) -> list[Series]:
    """LMCache's retrieve counters and resident bytes (labels as lmcache/observability.py sets them)."""
    labels = {"worker_id": "0", "role": "worker", "served_model_name": spec.model_name}
    requested_s = at_first_token(metric_name("lmcache_requested_tokens"), requested, **labels)
    stored = at_first_token(
        metric_name("lmcache_stored_tokens"), stored_blocks * trace.block_tokens, **labels
    )
    # NOTE: an LRU tier only frees space by evicting when full, so what it holds is everything
    # stored since the (re)start, capped at its capacity.
    resident = np.minimum(stored.values / trace.block_tokens, config.tiers[1].capacity_blocks) * block_bytes
    return [
        requested_s,
        at_first_token(metric_name("lmcache_hit_tokens"), hit, **labels),
        stored,
        Series(metric_name("lmcache_cpu_usage"), requested_s.labels, resident),
        Series(metric_name("lmcache_disk_usage"), requested_s.labels, np.zeros_like(resident)),
    ]


def _ttft_histogram(ttft_s, first_token, scrape_s, resets, base) -> list[Series]:
    name = metric_name("ttft_seconds")
    rows = [
        Series(
            f"{name}_bucket",
            base | {"le": le_label(b)},
            counter(first_token, (ttft_s <= b).astype(np.float64), scrape_s, resets),
        )
        for b in (*TTFT_BUCKETS, float("inf"))
    ]
    rows.append(Series(f"{name}_sum", base, counter(first_token, ttft_s, scrape_s, resets)))
    rows.append(Series(f"{name}_count", base, counter(first_token, np.ones_like(ttft_s), scrape_s, resets)))
    return rows


def _gauges(trace, out, config, spec, pod, scrape_s, base) -> list[Series]:
    mine = out.pod == pod
    arrival, finish = trace.arrival_s[mine], out.finish_s[mine]
    started = arrival + out.queue_s[mine]
    gpu_blocks = config.tiers[0].capacity_blocks
    blocks = out.num_blocks[mine].astype(np.float64)
    usage = np.minimum(in_flight(started, finish, blocks, scrape_s) / max(gpu_blocks, 1), 1.0)
    ones = np.ones(int(mine.sum()))
    rows = [
        Series(metric_name("num_requests_running"), base, in_flight(started, finish, ones, scrape_s)),
        Series(metric_name("num_requests_waiting"), base, in_flight(arrival, started, ones, scrape_s)),
        # NOTE: the simulator's queue is always for KV capacity; nothing is deferred.
        Series(
            metric_name("num_requests_waiting_by_reason"),
            base | {"reason": "capacity"},
            in_flight(arrival, started, ones, scrape_s),
        ),
        Series(
            metric_name("num_requests_waiting_by_reason"),
            base | {"reason": "deferred"},
            np.zeros_like(scrape_s),
        ),
        Series(metric_name("kv_cache_usage"), base, usage),
    ]
    cpu = [t for t in config.tiers if t.name == "cpu"]
    num_cpu = cpu[0].capacity_blocks if cpu else 0
    rows.append(
        Series(
            metric_name("cache_config_info"),
            base
            | {
                "block_size": str(trace.block_tokens),
                "num_gpu_blocks": str(gpu_blocks),
                "num_cpu_blocks": str(num_cpu),
                "enable_prefix_caching": "True",
                "cache_dtype": "auto",
            },
            np.ones_like(scrape_s),
        )
    )
    if cpu and spec.dialect.connector == "offloading":
        kv_bytes = profiles.model(config.model).kv_bytes_per_token
        rows.append(
            Series(
                metric_name("kv_offload_config_info"),
                base
                | {
                    "cpu_num_chunks": str(num_cpu),
                    "cpu_blocks_per_chunk": "1",
                    "cpu_kv_cache_size_tokens": str(num_cpu * trace.block_tokens),
                    "cpu_kv_cache_size_bytes": str(num_cpu * trace.block_tokens * kv_bytes),
                },
                np.ones_like(scrape_s),
            )
        )
    return rows


def epp_series(trace: Trace, out: ReplayOutcome, spec: ExportSpec, scrape_s: np.ndarray) -> list[Series]:
    """The EPP's routing counters and predicted-prefix histogram (it does not restart)."""
    base = {"pod": spec.epp_pod, "namespace": spec.namespace}
    none = np.zeros(0)
    rows = [
        Series(
            metric_name("epp_scheduler_attempts"),
            base | {"endpoint_name": name, "status": "success", "target_model_name": spec.model_name},
            counter(trace.arrival_s[out.pod == p], np.ones(int((out.pod == p).sum())), scrape_s, none),
        )
        for p, name in enumerate(spec.pod_names)
    ]
    ratio = out.predicted_hit_ratio
    labels = base | {"plugin_type": "prefix-cache-scorer", "plugin_name": "prefix-cache-scorer"}
    prompt = trace.input_tokens.astype(np.float64)
    for name, values, bounds in (
        (metric_name("epp_prefix_indexer_hit_ratio"), ratio, PREFIX_RATIO_BUCKETS),
        # NOTE: the names llm-d's kv-cache dashboard reads for the predicted hit rate.
        (metric_name("epp_prefix_predicted_cached_tokens"), ratio * prompt, TOKEN_BUCKETS),
        (metric_name("epp_prefix_prompt_tokens"), prompt, TOKEN_BUCKETS),
    ):
        rows += _histogram_at(name, labels, values, bounds, trace.arrival_s, scrape_s)
    return epp_dialect(rows, spec.dialect.epp)


def _histogram_at(name, labels, values, bounds, event_s, scrape_s) -> list[Series]:
    """A never-reset histogram (buckets, _sum, _count) of values observed at event_s."""
    none = np.zeros(0)
    rows = [
        Series(
            f"{name}_bucket",
            labels | {"le": le_label(b)},
            counter(event_s, (values <= b + 1e-12).astype(np.float64), scrape_s, none),
        )
        for b in (*bounds, float("inf"))
    ]
    rows.append(Series(f"{name}_sum", labels, counter(event_s, values, scrape_s, none)))
    rows.append(Series(f"{name}_count", labels, counter(event_s, np.ones_like(values), scrape_s, none)))
    return rows


def export_series(
    trace: Trace, out: ReplayOutcome, config: ClusterConfig, spec: ExportSpec, scrape_s: np.ndarray
) -> list[Series]:
    """Every series of the cluster at the given scrape times (trace seconds)."""
    assert len(spec.pod_names) == config.num_pods, "one pod name per pod"
    series = [s for p in range(config.num_pods) for s in pod_series(trace, out, config, spec, p, scrape_s)]
    return series + epp_series(trace, out, spec, scrape_s)
