"""Traces: import a trace, see what reuse it offers a prefix cache, and query the store read-only."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dashboard.services import trace_explorer, whatif
from dashboard.ui import cached, drawn, export, trace_cached, trace_widgets

CONSOLE_MAX_ROWS = 5_000


st.header("Traces")
st.caption("What reuse does a workload offer a prefix cache? Import a trace, explore it, query the store.")
path = str(cached.store_path())
drawn.reset()
infos = trace_cached.trace_list(path)
names = [t.name for t in infos]

with st.expander("Import a trace", expanded=not infos), st.form("traces_import_form"):
    upload = st.file_uploader(
        "Upload a trace (Mooncake/Bailian/OpenAI-chat JSONL or requests.parquet)",
        type=["jsonl", "json", "parquet"],
        key="traces_upload",
    )
    server_path = st.text_input("… or a path on the server", key="traces_import_path")
    cols = st.columns(2)
    fmt = cols[0].selectbox(
        "Format", [trace_explorer.AUTO_FORMAT, *whatif.format_names()], key="traces_import_format"
    )
    new_name = cols[1].text_input("Name in the store (default: the file's name)", key="traces_import_name")
    submitted = st.form_submit_button("Import")
if submitted:
    source, original = (
        (whatif.save_upload(upload.getvalue(), upload.name), upload.name)
        if upload
        else (server_path.strip(), server_path.strip())
    )
    already = trace_explorer.imported_as(infos, source) if source else None
    if not source:
        st.error("Choose a file to upload or type a path on the server.")
    elif already:
        st.info(f"This file is already imported as {already!r}.")
    else:
        try:
            info = trace_cached.import_trace(
                path, str(source), fmt, new_name or trace_explorer.default_name(original, names)
            )
        except (ValueError, OSError) as exc:
            st.error(f"Cannot import {Path(original).name}: {exc}")
        else:
            st.success(
                f"Imported {info.name!r} ({info.format}): {info.num_requests:,} requests, "
                f"{info.num_block_accesses:,} block accesses, {info.num_blocks:,} blocks"
            )
            infos = trace_cached.trace_list(path)
            names = [t.name for t in infos]
            st.session_state["traces_name"] = info.name

if not infos:
    st.info(
        f"No trace is imported into {path} yet: import one above, or `kvscope import-trace FILE --name NAME`."
    )
else:
    trace_widgets.trace_table(infos)
    cols = st.columns([2, 1])
    name = cols[0].selectbox("Trace", names, key="traces_name", bind="query-params")
    num_nodes = cols[1].slider(
        "Prefixes in the tree", 10, 200, 60, step=10, key="traces_tree_nodes", bind="query-params"
    )
    info = infos[names.index(name)]
    try:
        s = trace_cached.stats(path, info.name, info.trace_id, info.imported_at, num_nodes)
    except ValueError as exc:
        st.error(f"Cannot describe {name!r}: {exc}")
    else:
        trace_widgets.stats_panel(s)
        caption = export.caption_text(
            f"trace {info.name} ({info.format}, {info.block_tokens}-token blocks)",
            f"{info.num_requests:,} requests",
            f"store {path}",
        )
        export.export_picker(drawn.figures(), caption, key="traces_export")

st.subheader("SQL console (read-only)")
with st.form("traces_sql_form"):
    sql = st.text_area(
        "One read-only query over the store (tables: traces, trace_requests, samples, …)",
        trace_explorer.console_default_sql(),
        key="traces_sql",
        bind="query-params",
    )
    st.form_submit_button("Run")
if not Path(path).exists():
    st.info(f"There is no store at {path} yet.")
elif sql.strip():
    try:
        result = trace_cached.console(path, sql, CONSOLE_MAX_ROWS)
    except ValueError as exc:
        st.error(str(exc))
    else:
        st.dataframe(result.frame, hide_index=True, width="stretch")
        st.caption(
            f"{len(result.frame):,} row{'' if len(result.frame) == 1 else 's'} in {result.elapsed_s:.2f} s"
            + (f" — cut at the {result.max_rows:,}-row cap" if result.is_truncated else "")
        )
        st.download_button(
            "Download CSV",
            result.frame.to_csv(index=False),
            "kvscope-query.csv",
            "text/csv",
            key="traces_sql_csv",
        )
