"""How long a rate window must be for the data to answer it.

A windowed increase needs at least two samples of a series inside the window; with scrapes every
`interval` seconds a window shorter than two intervals often holds one or none, and the query
has no answer. Grafana's `$__rate_interval` guards against this with four intervals; we do the same.
"""

from __future__ import annotations

import math

MIN_SCRAPES_PER_WINDOW = 4  # Grafana's $__rate_interval rule: max(step, 4 × scrape interval)
ANSWERABLE_SCRAPES = 2  # fewer samples than this per window: no increase at all


def effective_window_s(requested_s: float, scrape_interval_s: float | None) -> float:
    """max(requested, 4 × scrape interval); the request as is when the interval is unknown."""
    if scrape_interval_s is None or not math.isfinite(scrape_interval_s) or scrape_interval_s <= 0:
        return float(requested_s)
    return max(float(requested_s), MIN_SCRAPES_PER_WINDOW * float(scrape_interval_s))


def is_answerable(window_s: float, scrape_interval_s: float | None) -> bool:
    """False when the window holds fewer than two scrape intervals (most windows have no answer)."""
    return scrape_interval_s is None or window_s >= ANSWERABLE_SCRAPES * scrape_interval_s


def format_window(window_s: float) -> str:
    """A short human window: 90 s, 5 min, 1.5 h."""
    if window_s < 120:
        return f"{window_s:g} s"
    if window_s < 7200:
        return f"{window_s / 60:g} min"
    return f"{window_s / 3600:g} h"


def promql_duration(window_s: float) -> str:
    """A PromQL duration in its largest whole unit: 5m, 90s, 1h, or milliseconds when needed."""
    ms = round(window_s * 1000)
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"
