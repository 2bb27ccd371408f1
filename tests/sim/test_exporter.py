"""The exporter on a hand-built four-request replay: what each vLLM/EPP series reads at each scrape."""

from __future__ import annotations

import numpy as np
import pytest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.utils import floatToGoString

from dashboard.core import profiles
from dashboard.core.types import ClusterConfig, ReplayOutcome, TierConfig
from dashboard.engine.readers.canonical import build_trace
from dashboard.sim.exporter import (
    PREFIX_RATIO_BUCKETS,
    TTFT_BUCKETS,
    ExportSpec,
    counter,
    epp_series,
    export_series,
    le_label,
    pod_series,
)
from dashboard.sim.exposition import render

# r0 and r1 go to pod 0, r2 (two CPU-tier blocks) to pod 1, r3 to pod 0 after its restart at 10 s.
ARRIVAL_S = np.array([0.0, 1.0, 3.0, 12.0])
NUM_BLOCKS = np.array([2, 3, 4, 1])
SCRAPE_S = np.array([0.4, 1.2, 2.5, 6.0, 11.0, 13.0])
CONFIG = ClusterConfig(num_pods=2, tiers=(TierConfig("gpu", 10), TierConfig("cpu", 40)))
SPEC = ExportSpec(pod_names=("vllm-0", "vllm-1"), restarts=((10.0, 0),))


@pytest.fixture(scope="module")
def replay():
    trace = build_trace(
        arrival_s=ARRIVAL_S,
        block_counts=NUM_BLOCKS,
        raw_block_ids=np.arange(1, NUM_BLOCKS.sum() + 1),
        input_tokens=NUM_BLOCKS * 64,
        output_tokens=np.array([10, 5, 20, 1]),
        block_tokens=64,
        source="hand",
    )
    queue_s = np.array([0.0, 0.3, 0.0, 0.0])
    load_s = np.array([0.0, 0.0, 0.1, 0.0])
    prefill_s = np.array([0.5, 0.1, 0.2, 0.002])
    outcome = ReplayOutcome(
        pod=np.array([0, 0, 1, 0], np.int32),
        hit_blocks=np.array([[0, 0, 0], [2, 0, 0], [1, 2, 0], [0, 0, 0]], np.int32),
        num_blocks=NUM_BLOCKS.astype(np.int32),
        cached_tokens=np.array([[0, 0, 0], [128, 0, 0], [64, 128, 0], [0, 0, 0]], np.int64),
        queue_s=queue_s,
        load_s=load_s,
        prefill_s=prefill_s,
        ttft_s=queue_s + load_s + prefill_s,
        finish_s=np.array([2.0, 1.5, 5.0, 12.1]),
        stored_blocks=np.array([0, 0, 2, 0], np.int32),
        predicted_hit_ratio=np.array([0.0, 2 / 3, 0.25, 0.0]),
    )
    series = export_series(trace, outcome, CONFIG, SPEC, SCRAPE_S)
    return trace, outcome, series


def values(series, metric: str, **labels: str) -> list[float]:
    match = [s for s in series if s.metric == metric and labels.items() <= s.labels.items()]
    assert len(match) == 1, (metric, labels, len(match))
    return match[0].values.tolist()


def test_prefix_counters_count_prompt_tokens_at_first_token_and_reset_at_restart(replay):
    _, _, series = replay
    # first tokens on pod 0: r0 at 0.5 s (128 tokens), r1 at 1.4 s (192, 128 cached), r3 at 12.002 s (64)
    assert values(series, "vllm:prefix_cache_queries_total", pod="vllm-0") == [0, 128, 320, 320, 0, 64]
    assert values(series, "vllm:prefix_cache_hits_total", pod="vllm-0") == [0, 0, 128, 128, 0, 0]
    assert values(series, "vllm:prompt_tokens_total", pod="vllm-0") == [0, 128, 320, 320, 0, 64]


def test_external_counters_query_only_what_the_gpu_missed(replay):
    _, _, series = replay
    assert values(series, "vllm:external_prefix_cache_queries_total", pod="vllm-1") == [
        0,
        0,
        0,
        192,
        192,
        192,
    ]
    assert values(series, "vllm:external_prefix_cache_hits_total", pod="vllm-1") == [0, 0, 0, 128, 128, 128]
    by_source = {
        src: values(series, "vllm:prompt_tokens_cached_by_source_total", pod="vllm-1", source=src)[-1]
        for src in ("device", "host", "disk")
    }
    assert by_source == {"device": 64, "host": 128, "disk": 0}


def test_offload_traffic_is_blocks_times_kv_bytes(replay):
    _, _, series = replay
    block_bytes = 64 * profiles.model(CONFIG.model).kv_bytes_per_token
    link = profiles.hardware(CONFIG.hardware).link_h2d_bytes_per_s
    assert values(series, "vllm:kv_offload_load_bytes_total", pod="vllm-1")[-1] == 2 * block_bytes
    assert values(series, "vllm:kv_offload_store_bytes_total", pod="vllm-1")[-1] == 2 * block_bytes
    assert values(series, "vllm:kv_offload_load_time_total", pod="vllm-1")[-1] == pytest.approx(0.1)
    assert values(series, "vllm:kv_offload_store_time_total", pod="vllm-1")[-1] == pytest.approx(
        2 * block_bytes / link
    )


def test_successes_and_generation_tokens_count_at_finish(replay):
    _, _, series = replay
    assert values(series, "vllm:request_success_total", pod="vllm-0", finished_reason="stop") == [
        0,
        0,
        2,
        2,
        0,
        1,
    ]
    assert values(series, "vllm:generation_tokens_total", pod="vllm-0") == [0, 0, 15, 15, 0, 1]


def test_ttft_histogram_buckets_are_cumulative_with_vllm_bounds(replay):
    _, _, series = replay
    at = {
        le_label(b): values(series, "vllm:time_to_first_token_seconds_bucket", pod="vllm-0", le=le_label(b))[
            2
        ]
        for b in (*TTFT_BUCKETS, float("inf"))
    }
    # at 2.5 s pod 0 has r0 (0.5 s) and r1 (0.4 s)
    assert at["0.25"] == 0 and at["0.5"] == 2 and at["2560.0"] == 2 and at["+Inf"] == 2
    assert values(series, "vllm:time_to_first_token_seconds_sum", pod="vllm-0")[2] == pytest.approx(0.9)
    assert values(series, "vllm:time_to_first_token_seconds_count", pod="vllm-0")[2] == 2


def test_le_labels_are_rendered_like_prometheus_client():
    for bound in (*TTFT_BUCKETS, *PREFIX_RATIO_BUCKETS, float("inf")):
        assert le_label(bound) == floatToGoString(bound)


def test_gauges_sample_the_in_flight_working_set(replay):
    _, _, series = replay
    # at 1.2 s: r0 runs (2 blocks of 10), r1 still queues until 1.3 s
    assert values(series, "vllm:num_requests_running", pod="vllm-0")[1] == 1
    assert values(series, "vllm:num_requests_waiting", pod="vllm-0")[1] == 1
    assert values(series, "vllm:kv_cache_usage_perc", pod="vllm-0")[1] == pytest.approx(0.2)
    assert values(series, "vllm:num_requests_running", pod="vllm-0")[3] == 0
    info = next(s for s in series if s.metric == "vllm:cache_config_info" and s.labels["pod"] == "vllm-1")
    assert info.labels["num_gpu_blocks"] == "10" and info.labels["block_size"] == "64"
    offload = next(
        s for s in series if s.metric == "vllm:kv_offload_config_info" and s.labels["pod"] == "vllm-0"
    )
    assert offload.labels["cpu_kv_cache_size_tokens"] == str(40 * 64)


def test_epp_counts_routing_decisions_and_predicted_ratios_without_resetting(replay):
    _, _, series = replay
    attempts = [
        values(series, "llm_d_epp_scheduler_attempts_total", endpoint_name=p)[-1] for p in SPEC.pod_names
    ]
    assert attempts == [3, 1]
    ratio = {
        b: values(series, "llm_d_epp_prefix_indexer_hit_ratio_bucket", le=le_label(b))[-1]
        for b in (0.0, 0.2, 0.3, 0.6, 0.7, float("inf"))
    }
    assert ratio == {0.0: 2, 0.2: 2, 0.3: 3, 0.6: 3, 0.7: 4, float("inf"): 4}
    assert values(series, "llm_d_epp_prefix_indexer_hit_ratio_count")[-1] == 4


def test_counter_restarts_from_zero_after_each_reset():
    events = np.array([1.0, 2.0, 3.0, 4.0])
    got = counter(events, np.ones(4), np.array([1.5, 2.5, 3.5, 4.5]), np.array([2.2, 3.7]))
    assert got.tolist() == [1, 0, 1, 1]


def test_exposition_parses_with_the_right_types(replay):
    trace, outcome, _ = replay
    text = render(pod_series(trace, outcome, CONFIG, SPEC, 1, np.array([6.0])))
    types = {f.name: f.type for f in text_string_to_metric_families(text)}
    assert types["vllm:time_to_first_token_seconds"] == "histogram"
    assert types["vllm:prefix_cache_queries"] == "counter"
    assert types["vllm:kv_cache_usage_perc"] == "gauge"
    epp = render(epp_series(trace, outcome, SPEC, np.array([13.0])))
    families = {f.name: f for f in text_string_to_metric_families(epp)}
    assert families["llm_d_epp_prefix_indexer_hit_ratio"].type == "histogram"
    assert {s.labels["pod"] for s in families["llm_d_epp_scheduler_attempts"].samples} == {"epp-0"}


def test_the_exporter_takes_every_metric_name_from_the_catalog():
    import re
    from pathlib import Path

    import dashboard.sim.exporter as exporter_module

    source = Path(exporter_module.__file__).read_text()
    literals = re.findall(r'"((?:vllm:|llm_d_|lmcache:|inference_extension_)[a-z_:]+)"', source)
    assert literals == [], "metric names belong in dashboard/core/catalog.py"
    assert exporter_module.metric_name("prefix_cache_hits") == "vllm:prefix_cache_hits_total"
