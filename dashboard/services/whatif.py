"""What the What-if page runs: load a trace by path, replay it, draw its LRU curve."""

from __future__ import annotations

import hashlib
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


UPLOAD_DIR = Path(tempfile.gettempdir()) / "kvscope-uploads"


def save_upload(data: bytes, filename: str) -> Path:
    """Keep an uploaded trace in a file named by its content hash (the readers stream from files).

    NOTE: keyed by content, so a page that reruns with the same upload finds the same path (and
    its cached reads and replays) instead of writing another temp file.
    """
    suffix = Path(filename).suffix or ".jsonl"
    path = UPLOAD_DIR / f"{hashlib.sha256(data).hexdigest()[:24]}{suffix}"
    if not path.exists():
        UPLOAD_DIR.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(suffix + ".part")
        partial.write_bytes(data)
        partial.replace(path)  # atomic: a concurrent reader never sees half a file
    return path


def replay(trace: Trace, req: ReplayRequest) -> ReplaySummary:
    """One replay's summary."""
    return run_replay(trace, req)


def curve(trace: Trace, num_points: int = 40) -> MissRatioCurve:
    """The exact LRU hit-ratio curve of one cache."""
    return lru_mrc(trace, num_points=num_points)
