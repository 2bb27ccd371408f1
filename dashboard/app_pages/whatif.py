"""What-if lab: replay a trace through other policies, capacities, tiers and routers."""

from __future__ import annotations

import streamlit as st

from dashboard.engine.policies import POLICIES
from dashboard.engine.routers import ROUTERS
from dashboard.services import whatif
from dashboard.services.replay import ReplayRequest
from dashboard.ui import whatif_charts
from dashboard.ui.theme import PLOTLY_CONFIG

st.header("What-if lab")
st.caption(
    "Replay a request trace through another cluster: exact prefix-cache semantics, vLLM's LRU "
    "order, per-tier accounting and a TTFT model from hardware/model profiles."
)


@st.cache_data(max_entries=4, show_spinner="Reading the trace …")
def trace_facts(path: str) -> tuple[int, int, int, int]:
    t = whatif.load(path)
    return t.num_requests, t.num_block_accesses, t.num_blocks, t.block_tokens


@st.cache_data(max_entries=32, show_spinner="Replaying …")
def replayed(path: str, req: ReplayRequest):
    return whatif.replay(whatif.load(path), req)


@st.cache_data(max_entries=4, show_spinner="Computing the LRU curve …")
def lru_curve(path: str):
    return whatif.curve(whatif.load(path))


upload = st.file_uploader(
    "Trace (Mooncake/Bailian JSONL or requests.parquet); default: the embedded sample",
    type=["jsonl", "json", "parquet"],
    key="whatif_upload",
)
path = str(whatif.save_upload(upload.getvalue(), upload.name)) if upload else str(whatif.SAMPLE_TRACE)
try:
    num_requests, num_accesses, num_blocks, block_tokens = trace_facts(path)
except ValueError as exc:
    st.error(f"Cannot read this trace: {exc}")
    st.stop()
st.caption(
    f"{num_requests:,} requests · {num_accesses:,} block accesses · {num_blocks:,} unique "
    f"{block_tokens}-token blocks"
)

with st.form("whatif_form"):
    cols = st.columns(3)
    pods = cols[0].number_input("Pods", 1, 64, 8, key="whatif_pods")
    router = cols[1].selectbox(
        "Router",
        list(ROUTERS),
        index=list(ROUTERS).index("prefix"),
        key="whatif_router",
        format_func=lambda r: f"{r} — {ROUTERS[r].description}",
    )
    policy = cols[2].selectbox(
        "Eviction policy",
        list(POLICIES),
        key="whatif_policy",
        format_func=lambda p: f"{p} — {POLICIES[p].description}",
    )
    cols = st.columns(3)
    hbm = cols[0].number_input(
        "HBM per pod (blocks)", 0, 10_000_000, max(num_blocks // (10 * pods), 1), key="whatif_hbm"
    )
    cpu = cols[1].number_input("CPU tier per pod (blocks, 0 = none)", 0, 10_000_000, 0, key="whatif_cpu")
    disk = cols[2].number_input("Disk tier per pod (blocks, 0 = none)", 0, 100_000_000, 0, key="whatif_disk")
    st.form_submit_button("Replay")

req = ReplayRequest(
    num_pods=int(pods),
    router=router,
    policy=policy,
    hbm_blocks=int(hbm),
    cpu_blocks=int(cpu),
    disk_blocks=int(disk),
)
summary = replayed(path, req)
cols = st.columns(5)
cols[0].metric("Block hit ratio", f"{summary.block_hit_ratio * 100:.1f}%")
cols[1].metric("Token hit ratio", f"{summary.token_hit_ratio * 100:.1f}%")
cols[2].metric("TTFT p50", f"{summary.ttft_s['p50']:.3f} s")
cols[3].metric("TTFT p99", f"{summary.ttft_s['p99']:.3f} s")
cols[4].metric("Load imbalance", f"{summary.load_imbalance:.2f}×", help="max / mean requests per pod")
left, right = st.columns(2)
left.plotly_chart(
    whatif_charts.tier_chart(summary), theme=None, config=PLOTLY_CONFIG, use_container_width=True
)
right.plotly_chart(
    whatif_charts.pods_chart(summary), theme=None, config=PLOTLY_CONFIG, use_container_width=True
)
st.plotly_chart(
    whatif_charts.mrc_chart(lru_curve(path), int(hbm) * int(pods), f"{num_blocks:,} unique blocks"),
    theme=None,
    config=PLOTLY_CONFIG,
    use_container_width=True,
)
st.caption(
    f"Engine time {summary.elapsed_s:.2f} s. Same replay on the command line: `kvscope replay {path} "
    f"--pods {pods} --router {router} --policy {policy} --hbm-blocks {hbm}"
    + (f" --cpu-blocks {cpu}" if cpu else "")
    + (f" --disk-blocks {disk}" if disk else "")
    + "`"
)
