"""Sample blocks (rollups, migration 009): rolled up as whole 30 minutes of samples fill, kept
equal to the samples by every write below the roll-up mark, and the log of writes a cache of
closed windows checks.

A block holds one series' samples in (block_end − level, block_end] for levels of 60, 300 and
1800 s; a window grid on one of those levels reads blocks up to blocks_through() and samples after
it instead of every sample (queries/schema/009). Rolling up is the writer's background work: the
collector does it after each pull, load-sample after loading, open_store when it opens a store
for writing; until then queries read those samples one by one, with the same answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pandas as pd

from dashboard.core.selection import EPOCH, epoch_s
from dashboard.store.db import Store
from dashboard.store.queries import bind_params, execute_write, load_query

LEVEL_S = 1800  # the largest block: the mark moves by whole ones
ROLL_LATE_S = 60.0  # the collector re-reads its last minute: samples that recent may still come
ROLL_SPAN = timedelta(days=1)


@dataclass(frozen=True)
class WrittenSpan:
    """The samples one write stored: their time span and count."""

    lo: datetime
    hi: datetime
    num_samples: int


@dataclass(frozen=True)
class Changes:
    """What the sample writes after a known write changed."""

    last_write_id: int
    earliest_ts: datetime | None  # the earliest ts they stored (None: no write since)
    num_new_series: int


def has_blocks(cur: Any) -> bool:
    """True when the store behind cur has sample_blocks (a store made before 009 has not)."""
    return bool(_fetch(cur, "has_blocks")[0][0])


def keep_blocks(cur: Any, span: WrittenSpan, num_new_series: int) -> None:
    """Log a write and recompute the blocks it changed: those holding a sample it stored at or
    before blocks_through() (a late sample, a backfill). Same transaction as the write."""
    through = _fetch(cur, "through")[0][0]
    if span.lo <= through:
        _make_blocks(cur, span.lo, min(span.hi, through))
    execute_write(
        cur,
        "writes_log",
        lo=span.lo,
        hi=span.hi,
        num_samples=span.num_samples,
        num_new_series=num_new_series,
    )


def roll_up(store: Store, late_s: float = ROLL_LATE_S) -> int:
    """Make the blocks of every whole 30 minutes ending late_s before the newest sample; returns
    how many 30-minute spans it rolled up. A day per transaction, so a big store's first roll-up
    keeps its memory bounded and a crash keeps the days done."""
    cur = store.cursor()
    try:
        if not has_blocks(cur):
            return 0
        through, first_after, newest = _fetch(cur, "roll_state")[0]
    finally:
        cur.close()
    if first_after is None:
        return 0
    target = _floor(newest - timedelta(seconds=late_s))
    start = max(through, _floor(first_after - timedelta(microseconds=1)))
    num = 0
    while start < target:
        stop = min(start + ROLL_SPAN, target)
        with store.transaction() as tx:
            _make_blocks(tx, start + timedelta(microseconds=1), stop)
            _set_through(tx, stop)
        num += int((stop - start) / timedelta(seconds=LEVEL_S))
        start = stop
    return num


def rebuild_blocks(store: Store) -> None:
    """Every block again from the samples (a salvaged store copied its samples row by row)."""
    with store.transaction() as cur:
        execute_write(cur, "blocks_clear")
        _set_through(cur, EPOCH)
    roll_up(store)


def set_rollups(store: Store, enabled: bool) -> None:
    """Let queries read blocks (the default) or make them read samples (the raw path tests compare)."""
    with store.transaction() as cur:
        execute_write(cur, "rollups_on" if enabled else "rollups_off")


def changes_since(store: Store, write_id: int) -> Changes | None:
    """What the writes after write_id stored; None when the store keeps no write log (before 009)."""
    cur = store.cursor()
    try:
        if not has_blocks(cur):
            return None
        last, earliest, num_new = _fetch(cur, "writes_since", since=write_id)[0]
    finally:
        cur.close()
    lo = None if earliest is None or pd.isna(earliest) else pd.Timestamp(earliest).to_pydatetime()
    return Changes(int(last), lo, int(num_new))


def _make_blocks(cur: Any, lo: datetime, hi: datetime) -> None:
    """The blocks of every level holding a sample in [lo, hi], again from the samples."""
    execute_write(cur, "blocks_delete", lo=lo, hi=hi)
    execute_write(cur, "blocks_insert", lo=lo, hi=hi)


def _set_through(cur: Any, through: datetime) -> None:
    """Move blocks_through() (a macro: its SQL text holds the time, formatted here)."""
    query = load_query("write/blocks_through")
    cur.execute(query.sql.replace("{through}", through.strftime("%Y-%m-%d %H:%M:%S.%f")))


def _floor(ts: datetime) -> datetime:
    """ts down to a multiple of LEVEL_S since 1970 (the end of a whole 30-minute block)."""
    return EPOCH + timedelta(seconds=(epoch_s(ts) // LEVEL_S) * LEVEL_S)


def _fetch(cur: Any, name: str, **params: Any) -> list[tuple]:
    query = load_query(f"blocks/{name}")
    cur.execute(query.sql, bind_params(query, params) if query.params else None)
    return cur.fetchall()
