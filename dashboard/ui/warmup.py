"""Compile the replay kernels with progress shown, the first time a page needs them after an edit or install."""

from __future__ import annotations

import streamlit as st

from dashboard.services import warmup


def ensure_compiled() -> None:
    """Run `kvscope warmup`'s steps under a status box unless they ran since the kernels last changed."""
    if warmup.is_warm():
        return
    with st.status("Compiling the replay engine once (about a minute on two cores) …", expanded=True) as box:
        line = st.empty()

        def progress(i: int, count: int, name: str, elapsed_s: float) -> None:
            line.write(f"Step {i + 1} of {count}: {name} ({elapsed_s:.0f} s so far)")

        seconds = warmup.warm_up(progress)
        box.update(
            label=f"Replay engine compiled in {seconds:.0f} s; later runs load it from disk",
            state="complete",
            expanded=False,
        )
