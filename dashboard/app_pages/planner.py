"""Capacity planner: HBM, CPU tier and pods per hardware option for a hit-ratio or TTFT target, with cost."""

from __future__ import annotations

import hashlib

import streamlit as st

from dashboard.core import profiles
from dashboard.services import planner
from dashboard.ui import cached, planner_cached, planner_charts, planner_policy_panel, warmup
from dashboard.ui.export import caption_text, export_buttons
from dashboard.ui.theme import PLOTLY_CONFIG

st.header("Capacity planner")
st.caption(
    "How much HBM and CPU-tier DRAM per pod, how many pods and which hardware meet a target on this "
    "workload — pooled LRU over the pods, TTFT from the latency model (docs/planner.md)."
)

path = str(cached.store_path())
upload = st.file_uploader(
    "Your hardware/model profiles (TOML, optional)", type=["toml"], key="planner_profiles"
)
digest = ""
if upload is not None:
    try:
        added = planner_cached.register_uploaded_profiles(upload.getvalue(), upload.name)
        digest = hashlib.sha256(upload.getvalue()).hexdigest()[:16]
        st.caption(f"Added hardware: {', '.join(added[0]) or '—'}; models: {', '.join(added[1]) or '—'}")
    except ValueError as exc:
        st.error(str(exc))

cols = st.columns(3)
trace_key = cols[0].selectbox(
    "Trace",
    planner_cached.trace_choices(path),
    key="planner_trace",
    bind="query-params",
    help="the embedded sample workload, or a trace imported with kvscope import-trace",
)
target = cols[1].selectbox(
    "Target",
    planner.TARGETS,
    key="planner_target",
    bind="query-params",
    help="hit: token hit ratio; ttft-pXX: that TTFT quantile (options are URL values)",
)
if target == "hit":
    value = cols[2].number_input(
        "Token hit ratio at least", 0.01, 0.99, 0.8, 0.05, key="planner_hit", bind="query-params"
    )
else:
    value = cols[2].number_input(
        "TTFT at most (s)", 0.001, 600.0, 0.5, 0.05, key="planner_ttft", bind="query-params"
    )
cols = st.columns([2, 1, 1, 1])
hardware = cols[0].multiselect(
    "Hardware side by side",
    list(profiles.HARDWARE),
    list(planner.DEFAULT_HARDWARE),
    key="planner_hardware",
    bind="query-params",
)
model = cols[1].selectbox(
    "Model",
    list(profiles.MODELS),
    index=list(profiles.MODELS).index("llama-3.1-8b"),
    key="planner_model",
    bind="query-params",
)
price = cols[2].number_input(
    "$ per GPU-hour", 0.0, 1000.0, 2.5, 0.25, key="planner_price", bind="query-params"
)
cpu_share = cols[3].slider(
    "CPU tier: share of host DRAM",
    0.0,
    1.0,
    planner.CPU_SHARE,
    0.05,
    key="planner_cpu_share",
    bind="query-params",
)

with st.expander("Price per hardware (optional)"):
    st.caption(
        "One GPU-hour of each option, when they differ; an empty field takes the price above. An "
        "uploaded profile's own price_per_gpu_hour fills its field."
    )
    own_prices = {}
    for column, name in zip(st.columns(max(len(hardware), 1)), hardware, strict=False):
        own = column.number_input(
            f"{name}: $ per GPU-hour",
            min_value=0.0,
            max_value=1000.0,
            value=profiles.hardware(name).price_per_gpu_hour,
            step=0.25,
            key=f"planner_price_{name}",
            bind="query-params",
        )
        if own is not None:
            own_prices[name] = float(own)

req = planner.PlanRequest(
    target=target,
    target_value=float(value),
    hardware=tuple(hardware),
    model=model,
    price_per_gpu_hour=float(price),
    cpu_share=float(cpu_share),
    hardware_prices=tuple(own_prices.items()),
)
warmup.ensure_compiled()
try:
    req.validate()
    result = planner_cached.plan(path, trace_key, req, digest)
except ValueError as exc:
    st.error(f"Cannot plan: {exc}")
    st.stop()

st.dataframe(
    planner_charts.plan_table(result),
    hide_index=True,
    width="stretch",
    column_config={"hardware": st.column_config.TextColumn(pinned=True)},  # stays while the rest scrolls
)
curve = planner_charts.plan_curve_chart(result)
st.plotly_chart(curve, theme=None, config=PLOTLY_CONFIG, width="stretch", key="planner_curve")
export_buttons(
    curve, caption_text(*planner.caption_parts(result)), key="planner_export", filename="kvscope-plan"
)
chosen = planner_policy_panel.policy_panel(path, trace_key, result, req, digest)
tiers = planner.tier_ttft_by_length(req.hardware, req.model)
st.plotly_chart(
    planner_charts.tier_ttft_chart(tiers, req.model),
    theme=None,
    config=PLOTLY_CONFIG,
    width="stretch",
    key="planner_tiers",
)
policies_flag = f" --policies {' '.join(chosen)}" if chosen else ""
prices_flag = "".join(f" --hardware-price {name}={own:g}" for name, own in own_prices.items())
st.caption(
    f"A CPU-tier hit costs its load over the host link: NVLink-C2C (GH200, 450 GB/s each way) against "
    f"PCIe Gen5 (H100/H200, ~54 GB/s measured). Planned in {result.elapsed_s:.2f} s. Same plan on the "
    f"command line: `kvscope plan {'' if trace_key == 'sample' else f'--trace {trace_key} '}--target {target}={value:g} --hardware {' '.join(hardware)} --model "
    f"{model} --price-per-gpu-hour {price:g}{prices_flag} --cpu-share {cpu_share:g}{policies_flag}`"
)
