"""Every number the Overview shows is the same read from the sample blocks as from the samples
(issue #17 item 1): the raw-sample path stays the truth the faster path is held to."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime

import pandas as pd
import pytest

from dashboard.core.selection import Selection, all_data_range, custom_range, time_range
from dashboard.services import explain, findings, overview
from dashboard.store.blocks import set_rollups
from dashboard.store.db import open_store
from tests.sample_store import sample_store

# NOTE: sums of non-integer counters (seconds, predicted tokens) may round differently when added
# block by block; every other number is equal to the last bit.
NOT_INTEGRAL = {"epp_predicted", "connector_health", "offload_traffic"}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    db = tmp_path_factory.mktemp("overview-blocks") / "sample.duckdb"
    sample_store(db)  # the sample as load-sample leaves it: every sample rolled up into blocks
    s = open_store(db)
    yield s
    s.close()


def selections(store) -> dict[str, Selection]:
    b = overview.bounds(store)
    return {
        "all data": Selection(all_data_range(b.first_ts, b.last_ts)),
        "last 24 h": Selection(time_range(b.last_ts, 86400)),
        "last hour, one pod": Selection(time_range(b.last_ts, 3600), pods=("vllm-1",)),
        "custom 3 h, two pods": Selection(
            custom_range(datetime(2026, 11, 30, 2, 40), datetime(2026, 11, 30, 5, 40)),
            pods=("vllm-0", "vllm-3"),
        ),
    }


def overview_numbers(store, sel: Selection) -> dict[str, object]:
    """Every service result one Overview render shows, by name."""
    sel = overview.with_window(store, sel)
    tr = sel.time_range
    out: dict[str, object] = {
        "bounds": overview.bounds(store),
        "window": sel.window_s,
        "caption": overview.window_caption(store, tr),
        "kpis": overview.kpis(store, sel),
        "residency": explain.block_residency(store, sel),
        "missing": overview.missing_metrics(
            store, ("prefix_cache_hits", "kv_cache_usage", "lmcache_hit_tokens")
        ),
        "findings": [f.as_dict() for f in findings.findings(store, tr.start, tr.end, max(300.0, tr.step_s))],
    }
    for name in overview.FRAMES:
        out[name] = getattr(overview, name)(store, sel)
    for name in explain.FRAMES:
        out[name] = getattr(explain, name)(store, sel)
    return out


@pytest.mark.parametrize("which", ["all data", "last 24 h", "last hour, one pod", "custom 3 h, two pods"])
def test_every_overview_number_is_the_same_from_blocks_as_from_samples(store, which):
    sel = selections(store)[which]
    fast = overview_numbers(store, sel)
    set_rollups(store, False)
    try:
        truth = overview_numbers(store, sel)
    finally:
        set_rollups(store, True)
    assert len(truth["hit_rate"]) > 0 and truth["kpis"].gpu_hit_rate is not None
    for name, want in truth.items():
        got = fast[name]
        if isinstance(want, pd.DataFrame):
            pd.testing.assert_frame_equal(got, want, check_exact=name not in NOT_INTEGRAL, rtol=1e-12)
        elif hasattr(want, "__dataclass_fields__"):
            assert asdict(got) == asdict(want), name
        else:
            assert got == want, name
