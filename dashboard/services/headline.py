"""The Overview's headline numbers and TTFT distribution from the whole range's per-series pieces
(services/range_totals.py), worked out as hit_rate.sql, ttft_quantiles.sql and
overview_ttft_distribution.sql do over one window (start, end] — the tests hold them equal.

A series counts in an increase only with two finite samples or more in the range (a window of
window_increases has a row only then); every chosen series counts its NaN/±Inf samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

HEADLINE_QUANTILES = (0.5, 0.99)


@dataclass(frozen=True)
class Kpis:
    """Headline numbers over the whole selected range."""

    gpu_hit_rate: float | None
    offload_hit_rate: float | None
    ttft_p50_s: float | None
    ttft_p99_s: float | None
    num_requests: float | None
    num_skipped_samples: int = 0  # NaN/±Inf samples left out of the hit-rate and TTFT math
    num_fixed_buckets: int = 0  # TTFT buckets lower than a bucket below them, counted as monotone


@dataclass(frozen=True)
class Histogram:
    """Requests per cumulative TTFT bucket over the range, summed over pods and made monotone."""

    le: np.ndarray  # bucket bounds, ascending, +Inf last when exported
    num_le: np.ndarray  # cumulative count at or below each bound, after the monotone fix
    num_fixed_buckets: int

    @property
    def num_total(self) -> float | None:
        """The +Inf bucket's count: every request (None when it was not exported)."""
        return float(self.num_le[-1]) if len(self.le) and np.isinf(self.le[-1]) else None

    def quantile(self, q: float) -> float | None:
        """histogram_quantile(q) as Prometheus (and ttft_quantiles.sql) computes it."""
        total = self.num_total
        if total is None or total == 0 or len(self.le) < 2:
            return None
        rank = q * total
        finite = np.flatnonzero((self.le < np.inf) & (self.num_le >= rank))
        if len(finite) == 0:  # NOTE: the rank falls in +Inf: the highest finite bound
            return float(self.le[self.le < np.inf].max())
        i = int(finite[0])
        if i == 0 and self.le[0] <= 0:
            return float(self.le[0])
        lower = float(self.le[i - 1]) if i else 0.0
        below = float(self.num_le[i - 1]) if i else 0.0
        with np.errstate(divide="ignore", invalid="ignore"):  # NOTE: DuckDB's x/0 is ±Inf or NaN too
            return float(
                lower + (self.le[i] - lower) * np.float64(rank - below) / np.float64(self.num_le[i] - below)
            )


def counted(pieces: pd.DataFrame) -> pd.DataFrame:
    """The series whose increase counts: two finite samples or more in the range."""
    return pieces[pieces.num_finite >= 2]


def histogram(pieces: pd.DataFrame) -> Histogram:
    """The TTFT buckets' increases summed by bound, ascending, with Prometheus's monotone fix."""
    buckets = counted(pieces[pieces.kind == "ttft_bucket"])
    per_le = buckets.groupby("le", sort=True)["increase"].sum()
    raw = per_le.to_numpy(float)
    monotone = np.maximum.accumulate(raw) if len(raw) else raw
    return Histogram(per_le.index.to_numpy(float), monotone, int((raw < monotone).sum()))


def kpis(pieces: pd.DataFrame) -> Kpis:
    """Hit rates per tier (hits over queries summed over the pods) and TTFT p50/p99 over the range."""
    rates, skipped = {}, 0
    for tier, rows in pieces[pieces.kind != "ttft_bucket"].groupby("tier"):
        inc = counted(rows)
        queries = inc.loc[inc.kind == "queries", "increase"].sum()
        if queries > 0:  # NOTE: hit_rate.sql leaves a tier without queries out, skipped samples too
            rates[tier] = inc.loc[inc.kind == "hits", "increase"].sum() / queries
            skipped += int(rows.num_skipped.sum())
    h = histogram(pieces)
    has_quantiles = len(h.le) > 0  # NOTE: ttft_quantiles.sql has rows, and skipped counts, only then
    if has_quantiles:
        skipped += int(pieces.loc[pieces.kind == "ttft_bucket", "num_skipped"].sum())
    p50, p99 = (h.quantile(q) for q in HEADLINE_QUANTILES)
    return Kpis(
        gpu_hit_rate=_maybe(rates.get("gpu")),
        offload_hit_rate=_maybe(rates.get("offload")),
        ttft_p50_s=p50,
        ttft_p99_s=p99,
        num_requests=h.num_total,
        num_skipped_samples=skipped,
        num_fixed_buckets=h.num_fixed_buckets if has_quantiles else 0,
    )


def ttft_distribution(pieces: pd.DataFrame) -> pd.DataFrame:
    """Requests per TTFT bucket (lower_s, upper_s, num_requests), +Inf last."""
    h = histogram(pieces)
    lower = np.concatenate([[0.0], h.le[:-1]]) if len(h.le) else h.le
    below = np.concatenate([[0.0], h.num_le[:-1]]) if len(h.le) else h.num_le
    return pd.DataFrame({"lower_s": lower, "upper_s": h.le, "num_requests": h.num_le - below})


def _maybe(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)
