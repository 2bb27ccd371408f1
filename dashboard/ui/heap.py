"""The app process's long-lived objects, kept out of the full collection after every script run.

NOTE: Streamlit runs gc.collect(2) after each script run (`runner.postScriptGC`, so a run's
cyclic garbage does not pile up). With the app's modules loaded (Streamlit, pandas, Plotly,
numba, DuckDB: ~226k tracked objects) that collection cost ~110 ms of every click; with them
frozen (gc.freeze: never traversed by the collector, still freed by reference counting) ~1 ms,
and each run's own garbage is still collected. `make bench`, side by side (2026-12-06): the
Overview's server time for a pod filter change 0.61 -> 0.41-0.43 s, for a range change 0.72 ->
0.56-0.60 s; click to last chart drawn 0.68 -> 0.63 s and 0.80 -> 0.75 s.
"""

from __future__ import annotations

import gc
import sys
import threading

_lock = threading.Lock()
_modules_frozen = 0  # len(sys.modules) at the last freeze


def freeze_after_imports() -> bool:
    """Collect, then freeze what is left, when modules were imported since the last freeze; True if it did.

    Runs once per page a process first shows (its imports), not once per click: what is alive
    then besides the modules (that run's objects) is frozen too, and so leaks if it later becomes
    cyclic garbage, at most a handful of times per process.
    """
    global _modules_frozen
    with _lock:
        if len(sys.modules) == _modules_frozen:
            return False
        gc.collect()
        gc.freeze()
        _modules_frozen = len(sys.modules)
        return True
