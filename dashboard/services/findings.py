"""Findings, "why did it fall?": change points in the cluster hit rate and TTFT p99, each with
the evidence found in its window, ranked (no Streamlit here).

Change points come from a rolling robust test rather than an offline segmentation (ruptures'
PELT or binary segmentation look at the whole signal, so a finding could move or vanish as later
data arrives). At each window i the median of the `post` windows from i on is compared with the
median of up to `pre` windows before i (never reaching back past the previous change); it is a
change when the shift is larger than both a minimum effect and `k` robust standard deviations
(1.4826 × MAD) of the windows before, and every window after lies past half the minimum effect on
the same side. A finding therefore uses only data up to its `detected_ts` = its change window +
post − 1 windows: it is online-valid, and truncating the data there gives the same finding.

A counter reset (restart) is a finding of its own when no change point covers it: an operator
wants to know a pod restarted even when the cluster hit rate did not move.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd

from dashboard.core.selection import SCRAPE_INTERVAL_S
from dashboard.core.units import format_duration
from dashboard.services.findings_evidence import Evidence, Windows, gather_evidence, load_windows
from dashboard.services.overview import bounds
from dashboard.store.db import Store, open_store

DEFAULT_STEP_S = 300.0
MIN_STEP_S = 4 * SCRAPE_INTERVAL_S
PRE_WINDOWS = 6
POST_WINDOWS = 3
MIN_PRE_WINDOWS = 4
K_MAD = 4.0
MIN_HIT_RATE_SHIFT = 0.05  # absolute hit rate
MIN_TTFT_LOG_SHIFT = math.log(1.5)  # TTFT p99 ×1.5 either way


@dataclass(frozen=True)
class ChangePoint:
    """A level shift in one series: index of the first window after it, and the window it is seen."""

    index: int
    detected_index: int
    before: float
    after: float


@dataclass(frozen=True)
class Finding:
    """One explained change: what moved, from when to when, and its evidence, most likely first."""

    change_ts: datetime  # the first window after the change (the window (change_ts − step, change_ts])
    detected_ts: datetime  # the last window this finding uses: it needs no data after it
    window_start: datetime  # start of the windows compared "before"
    signals: tuple[str, ...]  # hit_rate, ttft_p99, counter_reset
    summary: str
    evidence: tuple[Evidence, ...]
    severity: float  # the larger of |Δ hit rate| and |Δ log TTFT p99| / log 2

    @property
    def cause(self) -> str:
        """The most likely cause ('unexplained' without evidence)."""
        return self.evidence[0].cause if self.evidence else "unexplained"

    def as_dict(self) -> dict:
        """A JSON-ready form for `kvscope findings --json`."""
        return {
            "change_ts": self.change_ts.isoformat(),
            "detected_ts": self.detected_ts.isoformat(),
            "window_start": self.window_start.isoformat(),
            "signals": list(self.signals),
            "cause": self.cause,
            "severity": round(self.severity, 4),
            "summary": self.summary,
            "evidence": [
                {"cause": e.cause, "score": round(e.score, 3), "text": e.text} for e in self.evidence
            ],
        }


def change_points(
    values: np.ndarray, min_effect: float, pre: int = PRE_WINDOWS, post: int = POST_WINDOWS
) -> list[ChangePoint]:
    """Level shifts in values (NaNs already removed), each decided from data up to its detection."""
    found: list[ChangePoint] = []
    last = 0
    i = MIN_PRE_WINDOWS
    while i + post <= len(values):
        before = values[max(last, i - pre) : i]
        after = values[i : i + post]
        if len(before) < MIN_PRE_WINDOWS:
            i += 1
            continue
        base = float(np.median(before))
        scale = 1.4826 * float(np.median(np.abs(before - base)))
        shift = float(np.median(after)) - base
        sides = np.sign(after - base) * np.sign(shift)
        if (
            abs(shift) >= max(min_effect, K_MAD * scale)
            and np.all(sides > 0)
            and np.all(np.abs(after - base) >= min_effect / 2)
        ):
            found.append(ChangePoint(i, i + post - 1, base, float(np.median(after))))
            last = i
            i += MIN_PRE_WINDOWS
        else:
            i += 1
    return found


def findings(store: Store, start: datetime, end: datetime, step_s: float = DEFAULT_STEP_S) -> list[Finding]:
    """Every finding with its change in (start, end], in time order."""
    if end <= start:
        raise ValueError(f"findings: end {end} is not after start {start}")
    windows = load_windows(store, start, end, step_s)
    raw = _symptom_findings(windows) + _restart_findings(windows)
    merged = _merge(sorted(raw, key=lambda f: f.change_ts), step_s)
    return [
        replace(f, evidence=gather_evidence(windows, f.window_start, f.change_ts, f.detected_ts))
        for f in merged
    ]


def since_range(store_last_ts: datetime | None, since_s: float) -> tuple[datetime, datetime]:
    """(start, end) for `--since`: the last since_s seconds before the store's last sample."""
    if store_last_ts is None:
        raise ValueError(
            "the store holds no metric samples (load some with `kvscope load-sample` or `collect`)"
        )
    return store_last_ts - timedelta(seconds=since_s), store_last_ts


def _symptom_findings(w: Windows) -> list[Finding]:
    out = []
    for signal, series, min_effect in (
        ("hit_rate", w.hit_rate, MIN_HIT_RATE_SHIFT),
        ("ttft_p99", w.ttft_p99.map(math.log), MIN_TTFT_LOG_SHIFT),
    ):
        series = series.dropna()
        ts = list(series.index)
        for cp in change_points(series.to_numpy(dtype=float), min_effect):
            out.append(
                Finding(
                    change_ts=ts[cp.index],
                    detected_ts=ts[cp.detected_index],
                    window_start=ts[max(0, cp.index - PRE_WINDOWS)] - timedelta(seconds=w.step_s),
                    signals=(signal,),
                    summary=_describe(signal, cp.before, cp.after),
                    evidence=(),
                    severity=abs(cp.after - cp.before) / (1.0 if signal == "hit_rate" else math.log(2)),
                )
            )
    return out


def _restart_findings(w: Windows) -> list[Finding]:
    out = []
    step = timedelta(seconds=w.step_s)
    for pod, rows in w.resets.groupby("pod", sort=True):
        for ts in rows["ts"].drop_duplicates():
            change_ts = w.window_of(pd.Timestamp(ts).to_pydatetime())
            out.append(
                Finding(
                    change_ts=change_ts,
                    detected_ts=min(change_ts + (POST_WINDOWS - 1) * step, w.end),
                    window_start=change_ts - PRE_WINDOWS * step,
                    signals=("counter_reset",),
                    summary=f"pod {pod} restarted (its counters reset)",
                    evidence=(),
                    severity=0.0,
                )
            )
    return out


def _merge(raw: list[Finding], step_s: float) -> list[Finding]:
    """One finding per moment: changes within POST_WINDOWS windows of each other are one story."""
    merged: list[Finding] = []
    reach = timedelta(seconds=POST_WINDOWS * step_s)
    for f in raw:
        prev = merged[-1] if merged else None
        if prev is not None and f.change_ts - prev.change_ts <= reach:
            symptom_first = [x for x in (prev, f) if "counter_reset" not in x.signals] or [prev]
            merged[-1] = Finding(
                change_ts=min(prev.change_ts, f.change_ts),
                detected_ts=max(prev.detected_ts, f.detected_ts),
                window_start=min(prev.window_start, f.window_start),
                signals=tuple(dict.fromkeys(prev.signals + f.signals)),
                summary="; ".join(dict.fromkeys(x.summary for x in [*symptom_first, prev, f])),
                evidence=(),
                severity=max(prev.severity, f.severity),
            )
        else:
            merged.append(f)
    return merged


def _describe(signal: str, before: float, after: float) -> str:
    if signal == "hit_rate":
        verb = "fell" if after < before else "rose"
        return f"GPU prefix hit rate {verb} {before * 100:.0f}% → {after * 100:.0f}%"
    verb = "rose" if after > before else "fell"
    return f"TTFT p99 {verb} {format_duration(math.exp(before))} → {format_duration(math.exp(after))}"


def findings_for_path(path: Path, since_s: float, step_s: float = DEFAULT_STEP_S) -> list[Finding]:
    """Open the store at path read-only and find changes in the last since_s seconds of its data."""
    if not Path(path).exists():
        raise ValueError(
            f"store {path} does not exist (load data with `kvscope load-sample` or `kvscope collect`)"
        )
    if since_s <= 0:
        raise ValueError(f"--since must be positive, got {since_s:g} s")
    if step_s < MIN_STEP_S:
        raise ValueError(
            f"--step {step_s:g} s is under {MIN_STEP_S:g} s: a window needs four scrapes to answer"
        )
    store = open_store(path, read_only=True)
    try:
        start, end = since_range(bounds(store).last_ts, since_s)
        return findings(store, start, end, step_s)
    finally:
        store.close()
