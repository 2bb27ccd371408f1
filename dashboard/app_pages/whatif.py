"""What-if lab: replay a trace through other policies, capacities, tiers and routers."""

from __future__ import annotations

import streamlit as st

st.header("What-if lab")
st.info("Replays run from the command line for now: `kvscope replay TRACE --json` (see README).")
