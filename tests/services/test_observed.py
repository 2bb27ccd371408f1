"""Observed versus replayed: the sample's requests through the configuration its metrics describe."""

from __future__ import annotations

import shutil
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest

from dashboard.core.selection import aligned_range
from dashboard.services import observed, overview
from dashboard.services.overview import Selection
from dashboard.store.db import open_store
from dashboard.store.writes import write_samples
from tests.sample_store import sample_store

HW, MODEL = "h100-sxm", "llama-3.1-8b"  # the sample's (sample_data/README.md)


@pytest.fixture(scope="module")
def sample_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("observed") / "kvscope.duckdb"
    sample_store(path)
    return path


def whole(store) -> Selection:
    b = overview.bounds(store)
    return Selection(aligned_range(b.first_ts, b.last_ts))


def test_bucket_quantile_interpolates_inside_the_bucket_like_histogram_quantile():
    values = np.array([0.003, 0.003, 0.003, 0.015])
    assert observed.bucket_quantile(values, 0.5) == pytest.approx(0.001 + 0.004 * 2 / 3)
    assert observed.bucket_quantile(values, 1.0) == pytest.approx(0.02)  # top of the (0.01, 0.02] bucket
    assert observed.bucket_quantile(np.array([9_999.0]), 0.5) == 2560  # +Inf: the highest finite bound
    assert np.isnan(observed.bucket_quantile(np.array([]), 0.5))


def test_the_samples_replay_through_its_observed_configuration_matches_what_was_observed(sample_path):
    store = open_store(sample_path, read_only=True)
    result = observed.compare(store, whole(store), HW, MODEL)
    store.close()
    assert set(result.frame.measure) == set(observed.MEASURES)
    assert set(result.frame.source) == {"observed", "replayed"}
    assert abs(result.gaps["GPU hit rate"]) <= observed.HIT_GAP_OK
    assert abs(result.gaps["TTFT p99"]) <= observed.TTFT_GAP_OK
    assert "8 pods × (HBM 3,000 + CPU 18,000 blocks)" in result.config_text
    assert result.verdicts[0].startswith("GPU hit rate: replay within")


def test_one_pod_is_compared_on_its_own_requests(sample_path):
    store = open_store(sample_path, read_only=True)
    sel = whole(store)
    one = observed.compare(store, Selection(sel.time_range, pods=("vllm-0",)), HW, MODEL)
    cluster = observed.compare(store, sel, HW, MODEL)
    store.close()
    mine = one.frame[(one.frame.measure == "GPU hit rate") & (one.frame.source == "observed")].value
    all_pods = cluster.frame[(cluster.frame.measure == "GPU hit rate") & (cluster.frame.source == "observed")]
    assert not np.allclose(mine.to_numpy(), all_pods.value.to_numpy())
    assert abs(one.gaps["GPU hit rate"]) <= observed.HIT_GAP_OK


def test_a_cache_configured_smaller_than_the_engines_use_shows_a_replay_below_the_observed(
    sample_path, tmp_path
):
    path = tmp_path / "small.duckdb"
    shutil.copy(sample_path, path)
    store = open_store(path)
    b = overview.bounds(store)
    labels = {"block_size": "64", "num_gpu_blocks": "300", "model_name": MODEL, "engine": "0"}
    rows = [
        (b.last_ts + timedelta(seconds=15), "vllm:cache_config_info", {**labels, "pod": f"vllm-{i}"}, 1.0)
        for i in range(8)
    ]
    write_samples(store, pd.DataFrame(rows, columns=["ts", "metric", "labels", "value"]))
    result = observed.compare(store, whole(store), HW, MODEL)
    store.close()
    assert result.gaps["GPU hit rate"] < -observed.HIT_GAP_OK
    assert "HBM 300" in result.config_text
    assert "replay" in result.verdicts[0] and "lower" in result.verdicts[0]


def test_a_slower_accelerator_than_the_one_observed_shows_in_the_ttft_gap(sample_path):
    store = open_store(sample_path, read_only=True)
    result = observed.compare(store, whole(store), "h20", MODEL)  # a sixth of the H100's prefill FLOP/s
    store.close()
    assert result.gaps["TTFT p99"] > observed.TTFT_GAP_OK
    assert "over the observed" in result.verdicts[1]


def test_without_stored_requests_there_is_nothing_to_replay(sample_path, tmp_path):
    store = open_store(tmp_path / "empty.duckdb")
    tr = aligned_range(
        pd.Timestamp("2026-11-30").to_pydatetime(), pd.Timestamp("2026-11-30 01:00").to_pydatetime()
    )
    assert observed.compare(store, Selection(tr), HW, MODEL) is None
    store.close()
