"""What-if lab: compare one to four clusters on a trace — hits by tier, TTFT, load, and where the hits went."""

from __future__ import annotations

import streamlit as st

from dashboard.services import whatif
from dashboard.ui import cached, warmup, whatif_cached, whatif_panels, whatif_widgets

st.header("What-if lab")
st.caption(
    "Replay a request trace through up to four clusters side by side: exact prefix-cache semantics, "
    "vLLM's LRU order, per-tier accounting, the EPP's routers and a TTFT model from hardware/model "
    "profiles. Every input lives in the URL: copy the link to share the comparison (docs/whatif.md)."
)

path = str(cached.store_path())
stored = whatif_widgets.stored_names(path)
runs = whatif_widgets.saved_runs(path)
saved_traces = sorted(set(runs["trace"])) if not runs.empty else []
trace_key, fmt = whatif_widgets.trace_picker(stored, saved_traces)
src = whatif.source(trace_key)
fmt = fmt if src.stored_name is None else whatif.AUTO_FORMAT  # NOTE: a stored trace keeps its own format
try:
    trace = whatif_cached.trace(trace_key, fmt, whatif_cached.trace_version(trace_key))
except (ValueError, OSError) as exc:
    st.error(f"Cannot read {src.label}: {exc}")
    st.stop()
st.caption(
    f"{src.label}: {trace.num_requests:,} requests · {trace.num_block_accesses:,} block accesses · "
    f"{trace.num_blocks:,} unique {trace.block_tokens}-token blocks"
)
whatif_widgets.saved_runs_panel(runs, stored)

defaults = whatif.default_scenarios(trace.num_blocks)
whatif_widgets.follow_trace(trace_key, defaults)
scenarios = whatif_widgets.scenario_form(whatif_widgets.num_scenarios(), defaults)
exact_curves = whatif_widgets.exact_curves_toggle()
warmup.ensure_compiled()
bar = st.progress(0.0, text="Replaying …")


def progress(done: int, total: int, name: str) -> None:
    """Move the bar once per scenario."""
    bar.progress(done / total, text=f"Replaying {name} ({done + 1} of {total}) …" if name else "Done")


comparison, errors = whatif_cached.comparison(trace_key, fmt, scenarios, progress, exact_curves)
bar.empty()
for name, message in errors.items():
    st.error(f"{name} cannot run: {message}")
if not comparison.results:
    st.stop()

whatif_panels.overload_warnings(comparison)
whatif_panels.summary_table(comparison)
whatif_panels.reopened_note(comparison, st.session_state.get("whatif_reopened"))
whatif_panels.chart_grid(comparison)
whatif_panels.export_panel(comparison)
engine_s = sum(r.summary.elapsed_s for r in comparison.results)
whatif_panels.command_lines(comparison, src, fmt, path, engine_s)
