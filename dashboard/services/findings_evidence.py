"""The evidence a finding attaches: what else changed in its window, each scored 0–1 and ranked.

Every comparison is "the windows before the change" against "the windows from the change to the
detection", so evidence, like the change point itself, uses no data after the finding's time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

import pandas as pd

from dashboard.store.db import Store
from dashboard.store.queries import run_query

MIN_ROUTING_SHIFT = 0.08  # total-variation distance between request shares
MIN_LOG2_RATIO = 0.5  # ×1.41 either way
SATURATED_KV_USAGE = 0.85
MIN_LOAD_SHARE_OF_STORES = 0.05


@dataclass(frozen=True)
class Evidence:
    """One candidate cause: restart, routing, load, prompt_mix, kv_pressure or offload."""

    cause: str
    score: float
    text: str


@dataclass(frozen=True)
class Windows:
    """Every windowed series findings look at, over one range and step (rows at start + k × step)."""

    start: datetime
    end: datetime
    step_s: float
    hit_rate: pd.Series  # cluster GPU hit rate by ts
    ttft_p99: pd.Series  # cluster TTFT p99 (s) by ts
    resets: pd.DataFrame  # ts, pod, metric
    routing: pd.DataFrame  # ts, endpoint, num_requests
    load: pd.DataFrame  # ts, num_requests, prompt_tokens, num_preemptions, max_kv_usage
    offload: pd.DataFrame  # ts, direction, bytes_per_s (cluster)
    prompt_mix: pd.DataFrame  # ts, num_requests, mean_input_tokens (stored request rows)

    def window_of(self, ts: datetime) -> datetime:
        """The row ts whose window (ts − step, ts] holds ts."""
        k = math.ceil((ts - self.start).total_seconds() / self.step_s)
        return self.start + timedelta(seconds=k * self.step_s)


def load_windows(store: Store, start: datetime, end: datetime, step_s: float) -> Windows:
    """Run the findings' queries once over the whole range."""
    span = {"start": start, "end": end, "step": step_s}
    rates = run_query(store, "hit_rate", **span)
    cluster = rates[(rates.pod == "*") & (rates.tier == "gpu")]
    ttft = run_query(store, "ttft_quantiles", q=[0.99], **span)
    offload = run_query(store, "overview_offload_traffic", **span)
    return Windows(
        start=start,
        end=end,
        step_s=step_s,
        hit_rate=_series(cluster, "hit_rate"),
        ttft_p99=_series(ttft, "ttft_s"),
        resets=run_query(store, "findings_counter_resets", start=start, end=end),
        routing=run_query(store, "overview_routing", **span),
        load=run_query(store, "findings_load", **span),
        offload=offload.groupby(["ts", "direction"], as_index=False)["bytes_per_s"].sum(),
        prompt_mix=run_query(store, "findings_prompt_mix", **span),
    )


def gather_evidence(
    w: Windows, window_start: datetime, change_ts: datetime, detected_ts: datetime
) -> tuple[Evidence, ...]:
    """Every cause with evidence in (window_start, detected_ts], most likely first."""

    def split(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
        ts = frame["ts"]
        return frame[(ts > window_start) & (ts < change_ts)], frame[(ts >= change_ts) & (ts <= detected_ts)]

    found = [
        _restart(w, window_start, change_ts, detected_ts),
        _routing(*split(w.routing)),
        _load(*split(w.load)),
        _prompt_mix(*split(w.prompt_mix if len(w.prompt_mix) else w.load)),
        _kv_pressure(*split(w.load)),
        _offload(*split(w.offload)),
    ]
    return tuple(sorted((e for e in found if e is not None), key=lambda e: -e.score))


def _restart(
    w: Windows, window_start: datetime, change_ts: datetime, detected_ts: datetime
) -> Evidence | None:
    resets = w.resets[(w.resets.ts > window_start) & (w.resets.ts <= detected_ts)]
    if resets.empty:
        return None
    near = resets[resets.ts > change_ts - timedelta(seconds=2 * w.step_s)]
    pods = ", ".join(sorted(resets.pod.dropna().unique())) or "a pod"
    first = pd.Timestamp(resets.ts.min())
    return Evidence(
        "restart", 1.0 if len(near) else 0.5, f"{pods} restarted at {first:%H:%M:%S} (counters reset)"
    )


def _routing(before: pd.DataFrame, after: pd.DataFrame) -> Evidence | None:
    if before.empty or after.empty:
        return None
    shares = pd.DataFrame({"before": _shares(before), "after": _shares(after)}).fillna(0.0)
    distance = 0.5 * float((shares.after - shares.before).abs().sum())
    if distance < MIN_ROUTING_SHIFT:
        return None
    moved = (shares.after - shares.before).abs().sort_values(ascending=False).index[:3]
    detail = ", ".join(f"{e} {shares.before[e]:.0%}→{shares.after[e]:.0%}" for e in moved)
    return Evidence(
        "routing",
        min(1.0, distance / 0.5),
        f"routing shares shifted by {distance:.0%} of requests ({detail})",
    )


def _load(before: pd.DataFrame, after: pd.DataFrame) -> Evidence | None:
    ratio = _ratio(after.num_requests.mean(), before.num_requests.mean()) if len(before) else None
    if ratio is None or abs(math.log2(ratio)) < MIN_LOG2_RATIO:
        return None
    return Evidence("load", min(1.0, abs(math.log2(ratio)) / 2), f"request rate ×{ratio:.2g}")


def _prompt_mix(before: pd.DataFrame, after: pd.DataFrame) -> Evidence | None:
    """Mean prompt length: from stored request rows when there are some, else the counters."""
    if before.empty or after.empty:
        return None
    if "mean_input_tokens" in before:
        old, new, source = _weighted(before), _weighted(after), "stored requests"
    else:
        old = before.prompt_tokens.sum() / max(before.num_requests.sum(), 1.0)
        new = after.prompt_tokens.sum() / max(after.num_requests.sum(), 1.0)
        source = "prompt-token counters"
    ratio = _ratio(new, old)
    if ratio is None or abs(math.log2(ratio)) < MIN_LOG2_RATIO:
        return None
    return Evidence(
        "prompt_mix",
        min(1.0, abs(math.log2(ratio)) / 2),
        f"mean prompt {old:,.0f} → {new:,.0f} tokens ({source})",
    )


def _kv_pressure(before: pd.DataFrame, after: pd.DataFrame) -> Evidence | None:
    if before.empty or after.empty:
        return None
    old, new = float(before.max_kv_usage.median()), float(after.max_kv_usage.median())
    preempted = float(after.num_preemptions.sum())
    if new < SATURATED_KV_USAGE and preempted == 0:
        return None
    score = 0.6 * min(1.0, max(0.0, new - old) / 0.3) + (0.4 if preempted > 0 else 0.0)
    if score < 0.2:
        return None
    text = f"fullest pod's KV usage {old:.0%} → {new:.0%}"
    return Evidence("kv_pressure", score, text + (f", {preempted:,.0f} preemptions" if preempted else ""))


def _offload(before: pd.DataFrame, after: pd.DataFrame) -> Evidence | None:
    def rate(frame: pd.DataFrame, direction: str) -> float:
        rows = frame[frame.direction == direction]
        return float(rows.bytes_per_s.mean()) if len(rows) else 0.0

    if after.empty:
        return None
    old, new = rate(before, "load"), rate(after, "load")
    stored = rate(after, "store")
    # NOTE: a trickle of loads beside heavy stores is the tier filling, not reuse moving there.
    if new <= 2 * old or new <= MIN_LOAD_SHARE_OF_STORES * stored or new <= 0:
        return None
    score = min(1.0, math.log10((new + 1.0) / (old + 1.0)) / 2)
    return Evidence(
        "offload",
        score,
        f"offload loads {old / 1e6:,.1f} → {new / 1e6:,.1f} MB/s (stores {stored / 1e6:,.1f} MB/s: HBM evicting)",
    )


def _series(frame: pd.DataFrame, column: str) -> pd.Series:
    return pd.Series(frame[column].to_numpy(), index=[pd.Timestamp(t).to_pydatetime() for t in frame.ts])


def _shares(frame: pd.DataFrame) -> pd.Series:
    per = frame.groupby("endpoint")["num_requests"].sum()
    return per / per.sum() if per.sum() > 0 else per


def _weighted(frame: pd.DataFrame) -> float:
    return float((frame.mean_input_tokens * frame.num_requests).sum() / frame.num_requests.sum())


def _ratio(new: float, old: float) -> float | None:
    if not (old > 0 and new > 0) or math.isnan(old) or math.isnan(new):
        return None
    return new / old
