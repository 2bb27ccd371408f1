"""Rate windows the stored data can answer: max(requested, 4 × the observed scrape interval)."""

from __future__ import annotations

from datetime import datetime

import pandas as pd

from dashboard.core import windows
from dashboard.store.db import Store
from dashboard.store.queries import run_query


def observed_scrape_interval_s(
    store: Store, start: datetime | None = None, end: datetime | None = None
) -> float | None:
    """The median gap between an engine counter's consecutive samples, or None without two samples."""
    value = run_query(store, "scrape_interval", start=start, end=end).scrape_interval_s.iloc[0]
    return None if pd.isna(value) else float(value)


def effective_window_s(
    store: Store, requested_s: float, start: datetime | None = None, end: datetime | None = None
) -> float:
    """The window a rate over (start, end] uses: the request, raised to 4 × the observed scrape interval."""
    return windows.effective_window_s(requested_s, observed_scrape_interval_s(store, start, end))


def window_caption(window_s: float) -> str:
    """What a chart says about its window, e.g. 'rates over 1 min windows'."""
    return f"rates over {windows.format_window(window_s)} windows (≥ 4 scrape intervals)"


def short_step_note(store: Store, step_s: float) -> str | None:
    """One line when a step is below two observed scrape intervals (its windows have no answer), else None."""
    interval = observed_scrape_interval_s(store)
    if windows.is_answerable(step_s, interval):
        return None
    suggested = windows.effective_window_s(step_s, interval)
    return (
        f"step {step_s:g} s is below two scrape intervals (observed {interval:g} s): its windows hold "
        f"fewer than two samples per series; use step={suggested:g} (4 × the interval) or more"
    )
