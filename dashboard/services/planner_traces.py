"""Which traces the Planner page can plan for: the embedded sample, or a trace imported into the store."""

from __future__ import annotations

import dataclasses

from dashboard.core.config import SAMPLE_TRACE, SAMPLE_TRACE_LABEL
from dashboard.core.types import Trace
from dashboard.engine.readers import read_trace
from dashboard.services.traces import list_traces, load_stored_trace
from dashboard.store.db import Store

SAMPLE_KEY = "sample"


def trace_choices(store: Store | None) -> list[str]:
    """'sample' first, then every imported trace's name."""
    return [SAMPLE_KEY] + ([t.name for t in list_traces(store)] if store is not None else [])


def named_sample(trace: Trace) -> Trace:
    """The embedded sample by its name, so an exported plan's caption carries no local path."""
    return dataclasses.replace(trace, source=SAMPLE_TRACE_LABEL)


def load_planner_trace(store: Store | None, key: str) -> Trace:
    """The sample workload, or the stored trace called key."""
    if key == SAMPLE_KEY:
        return named_sample(read_trace(str(SAMPLE_TRACE)))
    if store is None:
        raise ValueError(f"trace {key!r}: there is no store to read it from")
    return load_stored_trace(store, key)
