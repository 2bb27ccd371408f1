"""The one selection every Overview query follows: pods, a time range and its window step.

Every range — a preset, "all data", a custom span over several days — ends up on the same
epoch-aligned grid: the step is chosen from the length (a whole number of 1, 5 or 30 minutes, the
store's sample-block lengths), then both edges are snapped to whole multiples of the step since
1970, so two ranges that cover the same data share their windows (and their totals) exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

SCRAPE_INTERVAL_S = 15.0
TARGET_POINTS = 120
MIN_LENGTH_S = 60.0
BLOCK_LEVELS_S = (60.0, 300.0, 1800.0)  # the sample-block lengths the store keeps (migration 009)
EPOCH = datetime(1970, 1, 1)  # naive UTC, like every stored ts


@dataclass(frozen=True)
class TimeRange:
    """A closed time range (naive UTC) and the window step its charts use."""

    start: datetime
    end: datetime
    step_s: float

    @property
    def length_s(self) -> float:
        """Seconds from start to end."""
        return (self.end - self.start).total_seconds()

    @property
    def caption(self) -> str:
        """'2026-11-30 00:00 → 06:00 UTC · window 180 s' (the end's date too when it differs)."""
        end = f"{self.end:%H:%M}" if self.end.date() == self.start.date() else f"{self.end:%Y-%m-%d %H:%M}"
        return f"{self.start:%Y-%m-%d %H:%M} → {end} UTC · window {self.step_s:g} s"


@dataclass(frozen=True)
class Selection:
    """What the page shows: these pods (empty = every pod) over this range."""

    time_range: TimeRange
    pods: tuple[str, ...] = ()
    window_s: float | None = None  # the rate window, once known (None: each query works it out)

    @property
    def pod_list(self) -> list[str] | None:
        """The pods as a query parameter: None means no filter."""
        return list(self.pods) or None

    @property
    def scope(self) -> str:
        """'cluster' or the pods shown, for chart titles."""
        if not self.pods:
            return "cluster"
        return ", ".join(self.pods) if len(self.pods) <= 3 else f"{len(self.pods)} pods"


class RangeError(ValueError):
    """A custom range that cannot be shown; the message says what to change."""


def choose_step(length_s: float, scrape_interval_s: float = SCRAPE_INTERVAL_S) -> float:
    """A window for 60–120 points: ≥ 4 scrapes, a whole number of scrape intervals, and a whole
    number of the largest sample-block length (60 s, 5 min, 30 min) not above ~TARGET_POINTS'
    step, so a long range reads the store's blocks instead of its samples (queries/schema/009)."""
    raw = max(length_s / TARGET_POINTS, 4 * scrape_interval_s)
    fits = [b for b in BLOCK_LEVELS_S if b <= raw and b % scrape_interval_s == 0]
    unit = max(fits, default=scrape_interval_s)
    return math.ceil(raw / unit) * unit


def epoch_s(ts: datetime) -> float:
    """Seconds since 1970 of a naive-UTC ts (the grid every window and sample block sits on)."""
    return (ts - EPOCH).total_seconds()


def _snap(ts: datetime, step_s: float, up: bool) -> datetime:
    n = epoch_s(ts) / step_s
    return EPOCH + timedelta(seconds=(math.ceil(n) if up else math.floor(n)) * step_s)


def aligned_range(start: datetime, end: datetime, keep_length: bool = False) -> TimeRange:
    """The range covering [start, end] on the epoch-aligned grid of its step.

    keep_length (presets): the range is exactly end − start long, ending on the first window
    edge at or after end; otherwise both edges move outwards to the grid (nothing is cut).
    """
    length = max((end - start).total_seconds(), MIN_LENGTH_S)
    step = choose_step(length)
    aligned_end = _snap(end, step, up=True)
    if keep_length:
        aligned_start = _snap(aligned_end - timedelta(seconds=length), step, up=False)
    else:
        aligned_start = _snap(min(start, aligned_end - timedelta(seconds=MIN_LENGTH_S)), step, up=False)
    return TimeRange(start=aligned_start, end=aligned_end, step_s=step)


def time_range(end: datetime, length_s: float) -> TimeRange:
    """The range of length_s seconds ending at end (the newest sample), on the aligned grid."""
    return aligned_range(end - timedelta(seconds=max(length_s, MIN_LENGTH_S)), end, keep_length=True)


def all_data_range(first: datetime, last: datetime) -> TimeRange:
    """Every sample, from the window edge at or before the first to the one at or after the last."""
    return aligned_range(first, last)


def custom_range(start: datetime, end: datetime) -> TimeRange:
    """A user's From/To range; RangeError naming what to change when it is reversed or empty."""
    if end <= start:
        raise RangeError(
            f"'To' ({end:%Y-%m-%d %H:%M}) is not after 'From' ({start:%Y-%m-%d %H:%M}): "
            "set 'To' later than 'From' (or pick an earlier 'From')."
        )
    return aligned_range(start, end)
