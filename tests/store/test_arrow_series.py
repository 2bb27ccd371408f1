"""Arrow tables with map labels are grouped into the same series, in the same order, as the per-row
path groups their pandas rows: pair order, repeated pairs, null and empty maps, null values, sliced
and chunked columns, aware timestamps, integer values and missing values included."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.store.arrow_series import grouped_map_rows
from dashboard.store.writes import LABELS_TYPE, _grouped

TEXTS = st.sampled_from(["", "a", "b", "a,b=c", "é", "\x00", "pod"])
PAIRS = st.lists(st.tuples(TEXTS, st.one_of(st.none(), TEXTS)), max_size=4)
ROWS = st.lists(
    st.tuples(st.one_of(st.none(), st.sampled_from(["m", "n"])), st.one_of(st.none(), PAIRS)), max_size=30
)


def table_of(rows, aware: bool, integer: bool, holes: bool = False) -> pa.Table:
    start = datetime(2026, 1, 1, tzinfo=UTC if aware else None)
    return pa.table(
        {
            "ts": pa.array(
                [start + timedelta(seconds=i) for i in range(len(rows))],
                pa.timestamp("us", "UTC" if aware else None),
            ),
            "metric": pa.array([m for m, _ in rows], pa.string()),
            "labels": pa.array([p for _, p in rows], LABELS_TYPE),
            "value": pa.array(
                [None if holes and i % 4 == 1 else i for i in range(len(rows))],
                pa.int64() if integer else pa.float64(),
            ),
        }
    )


def assert_same_series(table: pa.Table) -> None:
    fast = grouped_map_rows(table, "t")
    slow = _grouped(table.to_pandas(), "t")
    assert fast is not None
    # pandas turns a missing metric into NaN; the store refuses either with the same message
    assert fast.metrics == [None if m != m else m for m in slow.metrics]
    assert fast.labels == slow.labels
    np.testing.assert_array_equal(fast.series, slow.series)
    np.testing.assert_array_equal(fast.ts, slow.ts)
    np.testing.assert_array_equal(fast.values, slow.values)


@settings(max_examples=150, deadline=None)
@given(rows=ROWS, aware=st.booleans(), integer=st.booleans(), holes=st.booleans(), cut=st.integers(0, 5))
def test_generated_tables_group_as_the_per_row_path_groups_them(rows, aware, integer, holes, cut):
    table = table_of(rows, aware, integer, holes)
    assert_same_series(table)
    # sliced and split into chunks: offsets no longer start at zero in each chunk
    sliced = table.slice(min(cut, table.num_rows))
    assert_same_series(pa.concat_tables([sliced.slice(0, 3), sliced.slice(3)]))


def test_the_embedded_sample_groups_as_the_per_row_path_groups_it():
    sample = pq.read_table(SAMPLE_DATA_DIR / "metrics.parquet")
    # NOTE: every 97th row still holds all 480 series; all 700K rows cost the per-row path 5 s
    assert_same_series(sample.take(np.arange(0, sample.num_rows, 97)))


@pytest.mark.parametrize(
    "column, array",
    [
        ("labels", pa.array([{"pod": "a"}], pa.struct([("pod", pa.string())]))),
        ("value", pa.array(["1.5"])),
        ("ts", pa.array(["2026-01-01"])),
    ],
    ids=["struct labels", "text values", "text timestamps"],
)
def test_other_shapes_are_left_to_the_per_row_path(column, array):
    table = table_of([("m", [("pod", "a")])], aware=False, integer=False)
    table = table.set_column(table.column_names.index(column), column, array)
    assert grouped_map_rows(table, "t") is None


def test_a_missing_timestamp_names_its_row():
    table = table_of([("m", None)] * 3, aware=False, integer=False)
    table = table.set_column(0, "ts", pa.array([datetime(2026, 1, 1), None, None], pa.timestamp("us")))
    with pytest.raises(ValueError, match=r"^t: column 'ts' has a missing timestamp \(row 1\)$"):
        grouped_map_rows(table, "t")
