"""Per-series totals over the Overview's whole range (the headline and the TTFT distribution),
kept between renders so an auto-refresh tick reads only the samples after the kept part (issue #17).

The totals of (start, end] are the pieces of (start, cut] — kept, as of the store's write log —
joined to the pieces of (cut, end], read again each tick (queries/schema/011_range_pieces.sql: the
join adds the one pair of finite samples that straddles cut, so the result is the whole range's).
The kept part stays right while no later write stores a sample at or before cut or adds a series
(dashboard/store/blocks.py: changes_since); otherwise, or for another start or pod set, the whole
range is read again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
import pandas as pd

from dashboard.core.selection import Selection, epoch_s
from dashboard.services.window_cache import LATE_S, Kept
from dashboard.store.blocks import changes_since
from dashboard.store.db import Store
from dashboard.store.queries import run_query

_LABELS = ("pod", "kind", "tier", "le")


def read(store: Store, start: datetime, end: datetime, pods: list[str] | None) -> pd.DataFrame:
    """The pieces of (start, end] per series (overview_range_pieces.sql's columns)."""
    return run_query(store, "overview_range_pieces", start=start, end=end, pods=pods)


def whole(store: Store, sel: Selection) -> pd.DataFrame:
    """The pieces of the selection's whole range, read at once."""
    tr = sel.time_range
    return read(store, tr.start, tr.end, sel.pod_list)


def join(head: pd.DataFrame, tail: pd.DataFrame) -> pd.DataFrame:
    """The pieces of (a, c] from those of (a, b] (head) and (b, c] (tail), series by series."""
    if head.empty or tail.empty:
        return (tail if head.empty else head).reset_index(drop=True)
    both = head.merge(tail, on="series_id", how="outer", suffixes=("_h", "_t"), sort=True)
    h_num = both.num_finite_h.fillna(0).to_numpy(np.int64)
    t_num = both.num_finite_t.fillna(0).to_numpy(np.int64)
    h_last, t_first = both.last_finite_h.to_numpy(float), both.first_finite_t.to_numpy(float)
    # NOTE: the straddling pair, as the SQL adds it: v − prev, or v itself after a drop (a reset).
    pair = np.where(t_first >= h_last, t_first - h_last, t_first)
    inner = both.increase_h.fillna(0.0).to_numpy() + both.increase_t.fillna(0.0).to_numpy()
    out = pd.DataFrame({"series_id": both.series_id})
    for column in _LABELS:  # NOTE: a series' labels are the same in both parts
        out[column] = both[f"{column}_h"].where(both[f"{column}_h"].notna(), both[f"{column}_t"])
    out["increase"] = np.where((h_num > 0) & (t_num > 0), inner + pair, inner)
    out["first_finite"] = np.where(h_num > 0, both.first_finite_h, both.first_finite_t)
    out["last_finite"] = np.where(t_num > 0, both.last_finite_t, both.last_finite_h)
    out["num_finite"] = h_num + t_num
    out["num_skipped"] = _int(both.num_skipped_h) + _int(both.num_skipped_t)
    return out


def _int(column: pd.Series) -> np.ndarray:
    return column.fillna(0).to_numpy(np.int64)


@dataclass(frozen=True)
class _Kept:
    """The pieces of (start, cut], as of the store's write write_id."""

    write_id: int
    cut: datetime
    pieces: pd.DataFrame


class RangeCache:
    """Whole-range pieces by (pods, start): the part before the newest minute kept, the rest read."""

    def __init__(self, max_entries: int = 32) -> None:
        self._kept = Kept(max_entries)

    def pieces(self, store: Store, sel: Selection, newest: datetime | None) -> pd.DataFrame:
        """whole(store, sel), from the kept part and the samples after it."""
        tr = sel.time_range
        key = (sel.pods, tr.start)
        kept = self._kept.get(key)
        # NOTE: read before reading samples: a write landing meanwhile is seen as new by the next tick.
        since = changes_since(store, kept.write_id if kept is not None else 0)
        cut = _cut(sel, newest)
        if since is None or cut is None:  # NOTE: no write log (a store before 009), or nothing closed
            return whole(store, sel)
        is_valid = (
            kept is not None
            and since.num_new_series == 0
            and (since.earliest_ts is None or since.earliest_ts > kept.cut)
            and kept.cut <= cut
        )
        head = kept.pieces if is_valid else read(store, tr.start, cut, sel.pod_list)
        if is_valid and kept.cut < cut:
            head = join(head, read(store, kept.cut, cut, sel.pod_list))
        self._kept.put(key, _Kept(since.last_write_id, cut, head))
        return join(head, read(store, cut, tr.end, sel.pod_list)) if cut < tr.end else head


def _cut(sel: Selection, newest: datetime | None) -> datetime | None:
    """The last edge of the range's grid at least LATE_S before newest (later samples may still
    come: the collector re-reads the last minute), or None when there is none after its start."""
    if newest is None:
        return None
    tr = sel.time_range
    n = int((epoch_s(newest) - LATE_S - epoch_s(tr.start)) // tr.step_s)
    if n <= 0:
        return None
    return min(tr.start + timedelta(seconds=n * tr.step_s), tr.end)
