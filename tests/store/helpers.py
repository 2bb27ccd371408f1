"""Build small, hand-checkable sample sets for the SQL tests."""

from __future__ import annotations

from datetime import datetime, timedelta

import pandas as pd

T0 = datetime(2026, 1, 1)
SCRAPE_S = 15


def at(i: int) -> datetime:
    """Timestamp of scrape number i (i ≥ 1), SCRAPE_S apart after T0."""
    return T0 + timedelta(seconds=SCRAPE_S * i)


def counter_rows(metric: str, labels: dict[str, str], values: list[float], first: int = 1) -> list[tuple]:
    """One sample per scrape, starting at scrape `first`."""
    return [(at(first + i), metric, dict(labels), float(v)) for i, v in enumerate(values)]


def frame(rows: list[tuple]) -> pd.DataFrame:
    """Rows of (ts, metric, labels, value) as the frame write_samples takes."""
    return pd.DataFrame(rows, columns=["ts", "metric", "labels", "value"])
