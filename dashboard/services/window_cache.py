"""Closed windows of the Overview's per-window frames, kept between renders, so an auto-refresh
tick computes only the windows new samples can change (issue #13).

A per-window frame (hit rates, TTFT quantiles, …) is a row set per window (ts − window, ts], each
row a function of the samples inside its window alone (and of which series exist: the name
variant a pod is read under). So the rows of windows ending at or before a cut can be kept, and a
later render asks the store only for the windows after the cut (the same windows: a grid anchored
anywhere on it gives them), as long as no write since then stored a sample at or before the cut
or added a series; the store's write log says (dashboard/store/blocks.py). Otherwise, or when the
range starts before what is kept, the whole frame is computed again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import pandas as pd

from dashboard.core.selection import Selection, epoch_s
from dashboard.store.blocks import Changes, changes_since
from dashboard.store.db import Store

# NOTE: the frames whose rows each depend on one window only (ui/cached.py routes them here);
# ttft_distribution, the KPIs and capacity span the whole range and are always computed whole.
PER_WINDOW = frozenset(
    {
        "hit_rate",
        "ttft_quantiles",
        "kv_usage",
        "offload_traffic",
        "tier_occupancy",
        "routing",
        "prompt_sources",
        "waiting",
        "epp_predicted",
        "connector_health",
    }
)
LATE_S = 60.0  # the collector re-reads the last minute: windows that recent stay open

Compute = Callable[[Store, Selection], pd.DataFrame]


@dataclass(frozen=True)
class _Closed:
    """Rows of the windows from first_ts to cut, as of the store's write write_id."""

    write_id: int
    first_ts: datetime
    cut: datetime
    rows: pd.DataFrame


class Kept:
    """What a cache keeps between renders, by key: thread-safe, the least recently kept dropped first."""

    def __init__(self, max_entries: int) -> None:
        self._entries: OrderedDict[tuple, Any] = OrderedDict()
        self._max_entries = max_entries
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Any | None:
        """The entry kept for key, or None."""
        with self._lock:
            return self._entries.get(key)

    def put(self, key: tuple, value: Any) -> None:
        """Keep value for key."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)


class WindowCache:
    """Per-window frames by (name, pods, window, grid): the closed windows kept, the rest computed."""

    def __init__(self, max_entries: int = 128) -> None:
        self._kept = Kept(max_entries)

    def frame(
        self, store: Store, name: str, sel: Selection, newest: datetime | None, compute: Compute
    ) -> pd.DataFrame:
        """compute(store, sel), equal row for row, from kept windows plus the ones after them."""
        assert name in PER_WINDOW, f"{name} is not a per-window frame"
        assert sel.window_s is not None, "the selection's window must be worked out first"
        key = (name, sel.pods, sel.window_s, epoch_s(sel.time_range.start) % sel.window_s)
        kept = self._kept.get(key)
        # NOTE: read before computing: a write landing meanwhile is seen as new by the next tick.
        since = changes_since(store, kept.write_id if kept is not None else 0)
        if since is None or newest is None:  # NOTE: no write log (a store before 009): no reuse
            return compute(store, sel)
        frame = self._reuse(store, sel, kept, since, compute) if kept is not None else None
        if frame is None:
            frame = compute(store, sel)
        self._keep(key, sel, newest, since.last_write_id, frame)
        return frame

    def _reuse(
        self, store: Store, sel: Selection, kept: _Closed, since: Changes, compute: Compute
    ) -> pd.DataFrame | None:
        """The frame from kept rows and the windows after them; None when kept no longer holds."""
        tr = sel.time_range
        if since.num_new_series or kept.first_ts > tr.start:
            return None
        if since.earliest_ts is not None and since.earliest_ts <= kept.cut:
            return None
        head = kept.rows[(kept.rows.ts >= tr.start) & (kept.rows.ts <= min(kept.cut, tr.end))]
        step = timedelta(seconds=sel.window_s)
        if kept.cut + step > tr.end:
            return head.reset_index(drop=True)
        tail = compute(store, replace(sel, time_range=replace(tr, start=kept.cut + step)))
        return _concat(head, tail)

    def _keep(self, key: tuple, sel: Selection, newest: datetime, write_id: int, frame: pd.DataFrame) -> None:
        """Keep the frame's windows that end before newest − LATE_S (the rest may still grow)."""
        tr = sel.time_range
        n = int((epoch_s(newest) - LATE_S - epoch_s(tr.start)) // sel.window_s)
        cut = min(tr.start + timedelta(seconds=n * sel.window_s), tr.end)
        if cut < tr.start:
            return
        self._kept.put(key, _Closed(write_id, tr.start, cut, frame[frame.ts <= cut]))


def _concat(head: pd.DataFrame, tail: pd.DataFrame) -> pd.DataFrame:
    """head then tail as one frame; an empty part is left out (its column types may differ)."""
    parts = [p for p in (head, tail) if len(p)]
    if not parts:
        return tail.reset_index(drop=True)
    if len(parts) == 1:
        return parts[0].reset_index(drop=True)
    return pd.concat(parts, ignore_index=True)
