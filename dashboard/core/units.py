"""One way to write a duration on every page: ms below 1 s, s from 1 s up."""

from __future__ import annotations

import math


def format_duration(seconds: float | None) -> str:
    """'23 ms', '0.4 ms', '1.25 s', '—' for unknown."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "—"
    if abs(seconds) < 1e-3:
        return f"{seconds * 1000:.2g} ms"
    if abs(seconds) < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"


def duration_bound(seconds: float) -> str:
    """A histogram bucket bound, whole and short: '10', '2.5', '250' (ms) or '1.5' (s) — no unit."""
    value = seconds * 1000 if seconds < 1 else seconds
    return f"{value:g}"


def bucket_label(lower_s: float, upper_s: float) -> str:
    """'10–20 ms', '250 ms–1 s', '1–2.5 s': both bounds whole, the unit once where they agree."""
    lo_unit = "ms" if lower_s < 1 else "s"
    hi_unit = "ms" if upper_s < 1 else "s"
    if lower_s == 0:
        lo_unit = hi_unit
    lo, hi = duration_bound(lower_s) if lower_s else "0", duration_bound(upper_s)
    if lo_unit == hi_unit:
        return f"{lo}–{hi} {hi_unit}"
    return f"{lo} {lo_unit}–{hi} {hi_unit}"


def duration_tick(seconds: float) -> str:
    """A log-axis decade label: '1 ms', '10 ms', '100 ms', '1 s', '10 s'."""
    return f"{seconds * 1000:g} ms" if seconds < 1 else f"{seconds:g} s"
