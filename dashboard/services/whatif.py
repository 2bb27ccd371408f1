"""What the What-if page runs: load a trace by path, replay it, draw its LRU curve."""

from __future__ import annotations

import tempfile
from pathlib import Path

from dashboard.core.config import SAMPLE_DATA_DIR
from dashboard.core.types import Trace
from dashboard.engine.mrc import MissRatioCurve, lru_mrc
from dashboard.engine.readers import read_trace
from dashboard.engine.summary import ReplaySummary
from dashboard.services.replay import ReplayRequest, run_replay

SAMPLE_TRACE = SAMPLE_DATA_DIR / "requests.parquet"


def load(path: str, fmt: str | None = None) -> Trace:
    """The trace at path (format sniffed unless given)."""
    return read_trace(path, fmt)


def save_upload(data: bytes, filename: str) -> Path:
    """Keep an uploaded trace in a temp file (the readers stream from files), keeping its suffix."""
    suffix = Path(filename).suffix or ".jsonl"
    with tempfile.NamedTemporaryFile(prefix="kvscope-trace-", suffix=suffix, delete=False) as fh:
        fh.write(data)
    return Path(fh.name)


def replay(trace: Trace, req: ReplayRequest) -> ReplaySummary:
    """One replay's summary."""
    return run_replay(trace, req)


def curve(trace: Trace, num_points: int = 40) -> MissRatioCurve:
    """The exact LRU hit-ratio curve of one cache."""
    return lru_mrc(trace, num_points=num_points)
