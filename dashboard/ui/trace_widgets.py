"""Streamlit blocks of the Traces page: the stored-trace table and one trace's statistics panel."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from dashboard.core.trace_stats import TraceStats
from dashboard.services.traces import TraceInfo
from dashboard.ui import drawn
from dashboard.ui import trace_charts as tc
from dashboard.ui.theme import PLOTLY_CONFIG


def show(fig: go.Figure) -> None:
    """One chart, full column width, in the shared template."""
    st.plotly_chart(drawn.record(fig), theme=None, config=PLOTLY_CONFIG, width="stretch")


def trace_table(infos: list[TraceInfo]) -> None:
    """The traces in the store with their sizes."""
    st.dataframe(
        [
            {
                "name": t.name,
                "format": t.format,
                "requests": t.num_requests,
                "block accesses": t.num_block_accesses,
                "unique blocks": t.num_blocks,
                "block tokens": t.block_tokens,
                "imported (UTC)": t.imported_at,
                "source": t.source_path,
            }
            for t in infos
        ],
        hide_index=True,
        width="stretch",
    )


def stats_panel(s: TraceStats) -> None:
    """Headline numbers, the distributions and the prefix icicle of one trace."""
    sessions = "inferred" if s.is_sessions_inferred else "from the trace"
    cols = st.columns(6)
    cols[0].metric("Requests", f"{s.num_requests:,}")
    cols[1].metric("Unique blocks", f"{s.num_blocks:,}", help=f"{s.block_tokens}-token blocks")
    cols[2].metric("Duration", f"{s.duration_s / 60:,.1f} min")
    cols[3].metric(
        "Unlimited-cache ceiling",
        f"{s.ceiling_block_hit_ratio * 100:.1f}%",
        help="block hit ratio of a cache that never evicts",
    )
    cols[4].metric(
        "Ceiling, tokens",
        f"{s.ceiling_token_hit_ratio * 100:.1f}%",
        help="token hit ratio of a cache that never evicts",
    )
    cols[5].metric("Sessions", f"{s.num_sessions:,}", help=f"sessions {sessions}")
    left, right = st.columns(2)
    with left:
        show(tc.arrival_chart(s))
        show(
            tc.histogram_chart(
                s.blocks_per_request,
                "Blocks per request — requests",
                f"blocks ({s.block_tokens} tokens each)",
            )
        )
        show(
            tc.cdf_chart(
                s.reuse_gap_requests,
                "Block reuse gap in requests — CDF, %",
                "requests since the block's last use",
            )
        )
        show(
            tc.cdf_chart(
                s.turn_gap_s,
                f"Time between turns of a session ({sessions}) — CDF, %",
                "time between consecutive arrivals",
                seconds=True,
            )
        )
    with right:
        show(tc.histogram_chart(s.prompt_tokens, "Prompt length — requests", "prompt tokens"))
        show(
            tc.cdf_chart(
                s.reuse_gap_s,
                "Block reuse gap in time — CDF, %",
                "time since the block's last use",
                seconds=True,
            )
        )
        show(
            tc.histogram_chart(
                s.turns_per_session,
                f"Turns per session ({sessions}) — sessions",
                "requests in the session",
                "sessions",
            )
        )
    show(tc.prefix_icicle(s.prefix_tree, s.block_tokens))
