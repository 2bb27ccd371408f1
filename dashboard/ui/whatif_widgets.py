"""Widgets of the What-if page, each bound to the URL: the trace, one to four scenarios, saved runs to reopen.

Scenario i's widgets are keyed `whatif_s{i}_{field}`; a copied link carries every value that
differs from its default, so it reopens the same comparison.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.core import profiles
from dashboard.core.scenarios import MAX_SCENARIOS, Scenario
from dashboard.services import whatif
from dashboard.services.policy_curves import exact_limits
from dashboard.ui import cached
from dashboard.ui.trace_cached import trace_list

BIND = "query-params"
UPLOADS = "whatif_uploads"  # this session's upload keys
TRACE_SEEN = "whatif_defaults_trace"  # the trace the capacity widgets were last defaulted for
FIELDS = {  # widget suffix → Scenario field
    "pods": "num_pods",
    "router": "router",
    "policy": "policy",
    "hbm": "hbm_blocks",
    "cpu": "cpu_blocks",
    "disk": "disk_blocks",
    "hardware": "hardware",
    "model": "model",
    "wq": "queue_weight",
    "wkv": "kv_weight",
    "wprefix": "prefix_weight",
    "seed": "seed",
}


def key(index: int, suffix: str) -> str:
    """Session/URL key of scenario index's widget suffix."""
    assert suffix in FIELDS, suffix
    return f"whatif_s{index + 1}_{suffix}"


def stored_names(path: str) -> list[str]:
    """Names of the traces imported into the store."""
    return [t.name for t in trace_list(path)]


def _uploaded() -> None:
    upload = st.session_state.get("whatif_upload")
    if upload is not None:
        new = whatif.upload_key(upload.getvalue(), upload.name)
        st.session_state[UPLOADS] = [*st.session_state.get(UPLOADS, []), new]
        st.session_state["whatif_trace"] = new


def trace_picker(stored: list[str], saved_traces: list[str]) -> tuple[str, str]:
    """The trace key and format the user chose (uploads become choices that a link can name)."""
    extra = list(st.session_state.get(UPLOADS, []))
    extra += [v for v in st.query_params.get_all("whatif_trace") if v.startswith("upload:")]
    choices = whatif.trace_choices(stored, saved_traces, extra)
    cols = st.columns([3, 1, 3])
    trace_key = cols[0].selectbox(
        "Trace",
        choices,
        key="whatif_trace",
        bind=BIND,
        help="sample: the embedded 8-pod, 6-hour workload; stored: imported on the Traces page; "
        "upload: a file you uploaded here; file: the file a saved run replayed",
    )
    fmt = cols[1].selectbox(
        "Format",
        [whatif.AUTO_FORMAT, *whatif.format_names()],
        key="whatif_format",
        bind=BIND,
        help="how to read a file or an upload (auto: sniffed); a stored trace keeps its own",
    )
    cols[2].file_uploader(
        "Upload a trace (Mooncake/Bailian/OpenAI-chat JSONL or requests.parquet)",
        type=["jsonl", "json", "parquet"],
        key="whatif_upload",
        on_change=_uploaded,
    )
    return trace_key, fmt


def follow_trace(trace_key: str, defaults: tuple[Scenario, ...]) -> None:
    """After the user switches traces, reset the capacities to the new trace's defaults.

    NOTE: the capacity defaults scale with the trace, and a bound widget keeps its value when its
    default changes; without this the screen would keep the old trace's blocks while a copied link
    (which leaves out values equal to their defaults) would reopen with the new trace's.
    """
    previous = st.session_state.get(TRACE_SEEN)
    st.session_state[TRACE_SEEN] = trace_key
    if previous is None or previous == trace_key:
        return  # a first visit keeps what the link says
    for i, d in enumerate(defaults):
        st.session_state[key(i, "hbm")] = d.hbm_blocks or 0
        st.session_state[key(i, "cpu")] = d.cpu_blocks


def scenario_form(num: int, defaults: tuple[Scenario, ...]) -> tuple[Scenario, ...]:
    """num scenarios side by side in one form; submitting reruns the comparison."""
    with st.form("whatif_form", border=False):
        cols = st.columns(num if num > 1 else 2)
        scenarios = tuple(_scenario(cols[i], i, defaults[i]) for i in range(num))
        st.form_submit_button("Run comparison", type="primary", key="whatif_run")
    return scenarios


def _scenario(col, i: int, d: Scenario) -> Scenario:
    def num(box, label, low, high, default, step=1, **kw):
        return box.number_input(
            label, low, high, default, step, key=key(i, kw.pop("suffix")), bind=BIND, **kw
        )

    def pick(box, label, options, default, suffix, **kw):
        index = options.index(default)
        return box.selectbox(label, options, index=index, key=key(i, suffix), bind=BIND, **kw)

    col.markdown(f"**S{i + 1}**")
    a, b = col.columns(2)
    values = {"pods": num(a, "Pods", 1, 256, d.num_pods, suffix="pods")}
    values["policy"] = pick(b, "Eviction policy", whatif.policy_names(), d.policy, "policy")
    values["router"] = pick(
        col,
        "Router",
        list(whatif.router_descriptions()),
        d.router,
        "router",
        help=" · ".join(f"{name}: {text}" for name, text in whatif.router_descriptions().items()),
    )
    a, b = col.columns(2)
    hbm_help = "0 = size HBM from the hardware and model profiles"
    values["hbm"] = num(a, "HBM blocks/pod", 0, 10**8, d.hbm_blocks or 0, suffix="hbm", help=hbm_help)
    values["cpu"] = num(b, "CPU blocks/pod", 0, 10**9, d.cpu_blocks, suffix="cpu", help="0 = no CPU tier")
    values["hardware"] = pick(a, "Hardware", list(profiles.HARDWARE), d.hardware, "hardware")
    values["model"] = pick(b, "Model", list(profiles.MODELS), d.model, "model")
    more = col.expander("Disk tier, scorer weights, seed")
    values["disk"] = num(more, "Disk blocks/pod", 0, 10**10, d.disk_blocks, suffix="disk", help="0 = none")
    a, b, c = more.columns(3)
    weights_help = "EPP scorer weight (prefix, precise_prefix, no_hit_lru routers)"
    values["wq"] = num(a, "Queue", 0.0, 100.0, d.queue_weight, 0.5, suffix="wq", help=weights_help)
    values["wkv"] = num(b, "KV use", 0.0, 100.0, d.kv_weight, 0.5, suffix="wkv", help=weights_help)
    values["wprefix"] = num(
        c, "Prefix", 0.0, 100.0, d.prefix_weight, 0.5, suffix="wprefix", help=weights_help
    )
    values["seed"] = num(more, "Seed (random router)", 0, 2**31 - 1, d.seed, suffix="seed")
    fields = {FIELDS[s]: v for s, v in values.items()}
    fields["hbm_blocks"] = int(fields["hbm_blocks"]) or None
    return Scenario(**fields)


def num_scenarios() -> int:
    """How many scenarios to compare (1–4)."""
    options = list(range(1, MAX_SCENARIOS + 1))
    return st.radio("Scenarios", options, index=1, horizontal=True, key="whatif_n", bind=BIND)


def exact_curves_toggle() -> bool:
    """Whether the miss-ratio curve of each other policy is the exact sweep even on a large trace."""
    return st.toggle(
        "Exact curves for other policies",
        key="whatif_exact_curves",
        bind=BIND,
        help=f"off: on a trace of more than {exact_limits()}, each other policy's miss-ratio curve is a "
        "sampled approximation, labelled with its measured error (seconds become tenths); on: one replay "
        "of the whole trace per capacity (docs/whatif.md)",
    )


@st.cache_data(ttl=30, max_entries=4, show_spinner=False)
def saved_runs(path: str) -> pd.DataFrame:
    """Saved replays and sweeps in the store at path (keyed by path)."""
    return whatif.saved_runs(cached.get_store())


def _reopen(names: list[str], stored: list[str]) -> None:
    try:
        reopened = whatif.reopen(cached.get_store(), names, stored)
    except ValueError as exc:
        st.session_state["whatif_reopen_error"] = str(exc)
        return
    st.session_state.update(whatif_trace=reopened.trace_key, whatif_format=whatif.AUTO_FORMAT)
    st.session_state[TRACE_SEEN] = reopened.trace_key  # keep the reopened capacities
    st.session_state["whatif_n"] = len(reopened.scenarios)
    for i, scenario in enumerate(reopened.scenarios):
        for suffix, field in FIELDS.items():
            value = getattr(scenario, field)
            st.session_state[key(i, suffix)] = 0 if value is None else value
    st.session_state["whatif_reopened"] = reopened


def saved_runs_panel(runs: pd.DataFrame, stored: list[str]) -> None:
    """The saved replays and sweeps, and a button that reopens up to four of them as scenarios."""
    if runs.empty:
        st.caption(
            "Saved runs appear here: `kvscope replay TRACE --save NAME` or `kvscope sweep TRACE --grid FILE`."
        )
        return
    with st.expander(f"Saved replays and sweeps ({len(runs):,})"):
        st.dataframe(runs.drop(columns=["run_id"]), hide_index=True, width="stretch", height=220)
        names = st.multiselect(
            "Runs to reopen as scenarios (one trace, up to 4)",
            list(runs["name"]),
            max_selections=MAX_SCENARIOS,
            key="whatif_saved_pick",
        )
        st.button(
            "Reopen in the comparison",
            on_click=_reopen,
            args=(names, stored),
            disabled=not names,
            key="whatif_reopen",
        )
    error = st.session_state.pop("whatif_reopen_error", None)
    if error:
        st.error(f"Cannot reopen: {error}")
