"""Sample blocks (rollups, migration 009) answer every windowed query exactly as the samples do, and
every write keeps them equal to blocks built from scratch (issue #17 item 1)."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pandas as pd
import pytest

from dashboard.store.blocks import rebuild_blocks, roll_up, set_rollups
from dashboard.store.db import open_store
from dashboard.store.queries import run_query
from dashboard.store.writes import write_samples
from tests.store.helpers import store_at_version
from tests.store.messy import T0, messy_frame

START = datetime(2026, 3, 2)
# (start, end, step): grids on each block level, a whole-range window, and grids on none
GRIDS = [
    (START, START + timedelta(hours=4), 60.0),
    (START, START + timedelta(hours=4), 300.0),
    (START + timedelta(minutes=15), START + timedelta(hours=3, minutes=45), 900.0),
    (START, START + timedelta(hours=4), 1800.0),
    (START + timedelta(hours=4), START + timedelta(hours=4), 14400.0),
    (START + timedelta(minutes=30), START + timedelta(hours=2), 5400.0),
    (START, START + timedelta(hours=4), 90.0),  # on no level: samples both times
]
# NOTE: the families the others read are not in this history: test_overview_blocks checks them
WINDOWED = ("hit_rate", "overview_kv_usage", "overview_routing", "findings_load")


@pytest.fixture(scope="module")
def messy(tmp_path_factory):
    store = open_store(tmp_path_factory.mktemp("blocks") / "messy.duckdb")
    write_samples(store, messy_frame())
    roll_up(store, late_s=2400.0)  # blocks up to 02:00, then an hour of samples read one by one
    assert store.cursor().execute("SELECT blocks_through()").fetchone()[0] == START + timedelta(hours=2)
    yield store
    store.close()


def both(store, name: str, **params) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The query from blocks, then from samples (rollups off)."""
    blocks = run_query(store, name, **params)
    set_rollups(store, False)
    try:
        samples = run_query(store, name, **params)
    finally:
        set_rollups(store, True)
    return blocks, samples


@pytest.mark.parametrize("grid", GRIDS, ids=lambda g: f"{g[0]:%H%M}-{g[1]:%H%M}-{g[2]:g}")
@pytest.mark.parametrize("name", WINDOWED)
def test_a_windowed_query_reads_the_same_rows_from_blocks_as_from_samples(messy, name, grid):
    start, end, step = grid
    blocks, samples = both(messy, name, start=start, end=end, step=step)
    assert len(samples) > 0
    pd.testing.assert_frame_equal(blocks, samples, check_exact=True)


@pytest.mark.parametrize("grid", GRIDS, ids=lambda g: f"{g[0]:%H%M}-{g[1]:%H%M}-{g[2]:g}")
def test_ttft_quantiles_and_their_counts_are_the_same_from_blocks(messy, grid):
    start, end, step = grid
    blocks, samples = both(messy, "ttft_quantiles", start=start, end=end, step=step, q=[0.5, 0.9, 0.99])
    assert samples.num_skipped.sum() > 0  # NaN and ±Inf buckets inside the windows
    pd.testing.assert_frame_equal(blocks, samples, check_exact=True)


@pytest.mark.parametrize(
    "name, params",
    [
        ("time_bounds", {}),
        ("scrape_interval", {}),
        ("scrape_interval", {"start": START, "end": START + timedelta(hours=3)}),
        ("findings_counter_resets", {"start": START, "end": START + timedelta(hours=4)}),
        ("findings_counter_resets", {"start": START + timedelta(hours=1), "end": START + timedelta(hours=2)}),
        ("overview_ttft_distribution", {"start": START, "end": START + timedelta(hours=4)}),
        ("overview_capacity", {}),
        ("ingest_last_ts", {"names": ["vllm:prefix_cache_hits_total"]}),
    ],
)
def test_store_wide_reads_are_the_same_from_blocks(messy, name, params):
    blocks, samples = both(messy, name, **params)
    pd.testing.assert_frame_equal(blocks, samples, check_exact=True)


def test_the_counter_resets_found_in_blocks_are_every_reset(messy):
    resets, _ = both(messy, "findings_counter_resets", start=START, end=START + timedelta(hours=4))
    assert len(resets) >= 8  # two restarts per counter, some inside a block, some between two


def blocks_table(store) -> pd.DataFrame:
    rows = store.cursor().execute("SELECT * FROM sample_blocks").df()
    return rows.sort_values(["level_s", "series_id", "block_end"], ignore_index=True)


def test_blocks_written_piece_by_piece_equal_blocks_built_at_once(tmp_path):
    rows = messy_frame(seed=3)
    chunks = [
        rows[(rows.ts >= T0 + timedelta(minutes=m)) & (rows.ts < T0 + timedelta(minutes=m + 17))]
        for m in range(0, 190, 17)
    ]
    order = np.random.default_rng(1).permutation(len(chunks))  # appends, backfills and gaps filled
    store = open_store(tmp_path / "pieces.duckdb")
    try:
        for n, i in enumerate(order):
            write_samples(store, chunks[i])
            if n in (3, 7):
                roll_up(store)  # later chunks land below the mark too: their blocks are redone
        write_samples(store, chunks[order[0]])  # written twice: nothing new, nothing changes
        roll_up(store)
        pieces = blocks_table(store)
        rebuild_blocks(store)
        whole = blocks_table(store)
    finally:
        store.close()
    assert len(whole) > 0
    pd.testing.assert_frame_equal(pieces, whole, check_exact=False, rtol=1e-12)


def test_a_store_made_before_blocks_gets_them_when_opened_read_only(tmp_path):
    db = tmp_path / "old.duckdb"
    old = store_at_version(db, 8)
    write_samples(old, messy_frame())
    old.close()
    store = open_store(db, read_only=True)  # upgrades the schema first (one read-write open)
    try:
        num = store.cursor().execute("SELECT count(*) FROM sample_blocks").fetchone()[0]
    finally:
        store.close()
    assert num > 0
    store = open_store(db)
    try:
        blocks, samples = both(store, "hit_rate", start=START, end=START + timedelta(hours=4), step=1800.0)
    finally:
        store.close()
    pd.testing.assert_frame_equal(blocks, samples, check_exact=True)
