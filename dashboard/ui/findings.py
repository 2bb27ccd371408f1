"""The findings panel ("why did it fall?") and the markers it puts on the Overview's charts."""

from __future__ import annotations

from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from dashboard.services import findings as findings_service
from dashboard.services.findings import Finding
from dashboard.services.overview import TimeRange
from dashboard.ui import cached

CAUSE_LABELS = {
    "restart": "a pod restarted",
    "routing": "routing shares shifted",
    "load": "the request rate changed",
    "prompt_mix": "the prompt mix changed",
    "kv_pressure": "GPU KV cache saturated",
    "offload": "reuse moved to the offload tier",
    "unexplained": "no evidence in the window",
}


@st.cache_data(ttl=cached.DATA_TTL_S, max_entries=16, show_spinner=False)
def cached_findings(path: str, tr: TimeRange) -> list[Finding]:
    """Findings over the selected range (windows of at least DEFAULT_STEP_S, so noise stays out)."""
    step_s = max(findings_service.DEFAULT_STEP_S, tr.step_s)
    return findings_service.findings(cached._open(path), tr.start, tr.end, step_s)


def render_findings(path: str, tr: TimeRange, notes: pd.DataFrame) -> pd.DataFrame:
    """Draw the findings panel; return notes with one marker per finding for the charts."""
    found = cached_findings(path, tr)
    with st.expander(f"Findings: {len(found)} change(s) in this range", expanded=bool(found)):
        if not found:
            st.caption("The hit rate and TTFT p99 held steady and no pod restarted.")
        for f in found:
            st.markdown(finding_markdown(f))
    return pd.concat([notes, finding_markers(found)], ignore_index=True) if found else notes


def finding_markdown(f: Finding) -> str:
    """One finding as Markdown: time range, what moved, the evidence ranked."""
    head = (
        f"**{f.change_ts:%H:%M}: {f.summary}** — most likely {CAUSE_LABELS.get(f.cause, f.cause)}  \n"
        f"window {f.window_start:%Y-%m-%d %H:%M} → {f.detected_ts:%H:%M} UTC "
        f"([show this window]({window_link(f)}))"
    )
    lines = [f"{i}. `{e.cause}` ({e.score:.2f}) {e.text}" for i, e in enumerate(f.evidence, 1)]
    return "\n".join([head, *lines]) if lines else head


def window_link(f: Finding) -> str:
    """A relative link that reopens the Overview on the finding's window (the sidebar's URL keys)."""
    params = {
        "sidebar_range": "custom",
        "sidebar_from_day": f"{f.window_start:%Y-%m-%d}",
        "sidebar_from": f"{f.window_start:%H:%M}",
        "sidebar_to_day": f"{f.detected_ts:%Y-%m-%d}",
        "sidebar_to": f"{f.detected_ts:%H:%M}",
    }
    return "?" + urlencode(params)


def finding_markers(found: list[Finding]) -> pd.DataFrame:
    """Annotation rows (ts, kind, text) for the charts' event lines, one per finding."""
    return pd.DataFrame(
        {
            "ts": [f.change_ts for f in found],
            "kind": [f"finding: {f.cause}" for f in found],
            "text": [f.summary for f in found],
        }
    )
