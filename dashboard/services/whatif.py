"""What the What-if page reads: which trace (sample, stored, uploaded, a saved run's file), under the user's names.

A trace is chosen by a key that reads well in the selector and the URL: `sample`,
`stored:<name>`, `upload:<original file name>#<content-hash file>` (a file kept in UPLOAD_DIR)
or `file:<path>` (the file a saved replay or sweep was run on). Messages and command lines use the user's
names, never the temp path an upload is kept under.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from dashboard.core.config import SAMPLE_TRACE, SAMPLE_TRACE_LABEL
from dashboard.core.scenarios import DEFAULT_HARDWARE, DEFAULT_MODEL, DEFAULT_WEIGHTS, MAX_SCENARIOS, Scenario
from dashboard.core.types import Trace
from dashboard.engine.policies import POLICIES
from dashboard.engine.readers import READERS, read_trace
from dashboard.engine.routers import ROUTERS, router_info
from dashboard.services.saved_replays import list_replays, load_replay
from dashboard.services.traces import list_traces, load_stored_trace
from dashboard.store.db import Store

SAMPLE_KEY = "sample"
AUTO_FORMAT = "auto"
UPLOAD_DIR = Path(tempfile.gettempdir()) / "kvscope-uploads"
_UPLOAD_FILE = re.compile(r"^[0-9a-f]{24}\.[A-Za-z0-9]+$")


@dataclass(frozen=True)
class TraceSource:
    """A chosen trace: its URL key, the user's name for it, and where to read it."""

    key: str
    label: str  # the user's name: their file's name, a stored trace's name, a saved run's path
    path: str | None  # the file to read; None for a trace stored in the db
    stored_name: str | None = None

    @property
    def cli_trace(self) -> str:
        """TRACE as the user would type it on the command line."""
        if self.key == SAMPLE_KEY:
            return _relative(SAMPLE_TRACE)
        return self.label


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


def upload_key(data: bytes, filename: str) -> str:
    """Save an upload and return its trace key (which carries the user's file name)."""
    return f"upload:{Path(filename).name}#{save_upload(data, filename).name}"


def is_valid_key(key: str, stored_names: list[str] | tuple[str, ...] = ()) -> bool:
    """True when key names a trace this server can read."""
    try:
        src = source(key)
    except ValueError:
        return False
    return src.stored_name in stored_names if src.stored_name is not None else Path(src.path).is_file()


def source(key: str) -> TraceSource:
    """The TraceSource a key names (ValueError for a malformed key)."""
    kind, _, rest = key.partition(":")
    if key == SAMPLE_KEY:
        return TraceSource(key, SAMPLE_TRACE_LABEL, str(SAMPLE_TRACE))
    if kind == "stored" and rest:
        return TraceSource(key, rest, None, stored_name=rest)
    if kind == "file" and rest:
        return TraceSource(key, rest, rest)
    name, _, kept = rest.rpartition("#")
    if kind == "upload" and _UPLOAD_FILE.match(kept) and name:
        return TraceSource(key, name, str(UPLOAD_DIR / kept))
    raise ValueError(f"not a trace key: {key!r} (sample, stored:NAME, upload:NAME#FILE or file:PATH)")


def read_source(store: Store | None, src: TraceSource, fmt: str) -> Trace:
    """Read the trace src names; a ValueError names the user's file, never the temp copy."""
    if src.stored_name is not None:
        if store is None:
            raise ValueError(f"trace {src.label!r}: there is no store to read it from")
        return load_stored_trace(store, src.stored_name)
    try:
        return read_trace(src.path, None if fmt == AUTO_FORMAT else fmt)
    except (ValueError, OSError) as exc:
        raise ValueError(str(exc).replace(str(src.path), src.label)) from None


def version(store: Store | None, src: TraceSource) -> str:
    """What changes when the trace behind src changes (a cache key): file size and time, or import time."""
    if src.stored_name is not None:
        infos = {t.name: t for t in list_traces(store)} if store is not None else {}
        info = infos.get(src.stored_name)
        return f"{src.stored_name}#{info.trace_id}@{info.imported_at}" if info else src.stored_name
    stat = Path(src.path).stat()
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def trace_choices(stored_names: list[str], saved_traces: list[str], extra_keys: list[str]) -> list[str]:
    """The sample, stored traces, files of saved runs readable here, and this session's uploads."""
    keys = [SAMPLE_KEY] + [f"stored:{n}" for n in stored_names]
    keys += [f"file:{t}" for t in saved_traces if t not in stored_names and Path(t).is_file()]
    keys += [k for k in extra_keys if is_valid_key(k, stored_names)]
    return list(dict.fromkeys(keys))


def trace_key_for(label: str, stored_names: list[str]) -> str:
    """The key of the trace a saved run names (a stored trace, else a file here); ValueError if neither."""
    if label in stored_names:
        return f"stored:{label}"
    if Path(label).is_file():
        return f"file:{label}"
    raise ValueError(
        f"the saved runs were replayed on {label!r}, which is neither a stored trace nor a file this "
        "server can read; import it on the Traces page (kvscope import-trace) under that name"
    )


def scenario_from_config(config: dict) -> Scenario:
    """The scenario a saved replay ran (its config holds the effective HBM blocks, hardware and model)."""
    return Scenario(
        num_pods=int(config.get("num_pods", 1)),
        router=str(config.get("router", "round_robin")),
        policy=str(config.get("policy", "lru")),
        hbm_blocks=int(config["hbm_blocks"]),
        cpu_blocks=int(config.get("cpu_blocks") or 0),
        disk_blocks=int(config.get("disk_blocks") or 0),
        hardware=str(config.get("hardware") or DEFAULT_HARDWARE),
        model=str(config.get("model") or DEFAULT_MODEL),
        seed=int(config.get("seed") or 0),
    )


@dataclass(frozen=True)
class Reopened:
    """Saved runs turned back into scenarios on the trace they were replayed on."""

    trace_key: str
    names: tuple[str, ...]
    scenarios: tuple[Scenario, ...]
    saved_token_hit_ratios: tuple[float, ...]  # as saved, to set beside the recomputed figures


def saved_runs(store: Store | None) -> pd.DataFrame:
    """Saved replays and sweep runs, newest first (empty without a store)."""
    return list_replays(store) if store is not None else pd.DataFrame()


def reopen(store: Store, names: list[str], stored_names: list[str]) -> Reopened:
    """The scenarios of up to MAX_SCENARIOS saved runs of one trace (ValueError naming what is wrong)."""
    if not 1 <= len(names) <= MAX_SCENARIOS:
        raise ValueError(f"choose one to {MAX_SCENARIOS} saved runs, not {len(names)}")
    runs = [load_replay(store, n) for n in names]
    traces = sorted({r.trace for r in runs})
    if len(traces) > 1:
        raise ValueError(f"these runs replayed different traces ({', '.join(traces)}); choose runs of one")
    return Reopened(
        trace_key_for(traces[0], stored_names),
        tuple(names),
        tuple(scenario_from_config(r.config) for r in runs),
        tuple(float(r.summary["token_hit_ratio"]) for r in runs),
    )


def default_scenarios(num_blocks: int) -> tuple[Scenario, ...]:
    """The page's four starting scenarios: 8 pods whose HBM together holds ~10% of the trace's blocks."""
    hbm = _round_2(max(num_blocks / 80, 1))
    return (
        Scenario(router="round_robin", hbm_blocks=hbm),
        Scenario(router="prefix", hbm_blocks=hbm),
        Scenario(router="precise_prefix", hbm_blocks=hbm, cpu_blocks=3 * hbm),
        Scenario(router="precise_prefix", policy="s3fifo", hbm_blocks=hbm, cpu_blocks=3 * hbm),
    )


def _round_2(value: float) -> int:
    """value rounded to two significant digits (at least 1)."""
    digits = max(len(str(int(value))) - 2, 0)
    return max(int(round(value, -digits)), 1)


def command_line(src: TraceSource, fmt: str, scenario: Scenario, db_path: str | None = None) -> str:
    """The `kvscope replay` line of one scenario, naming the user's trace."""
    parts = ["kvscope", "replay", shlex.quote(src.cli_trace)]
    parts += ["--format", fmt] if fmt != AUTO_FORMAT and src.stored_name is None else []
    parts += ["--db", shlex.quote(db_path)] if src.stored_name is not None and db_path else []
    parts += ["--pods", str(scenario.num_pods), "--router", scenario.router, "--policy", scenario.policy]
    sized = scenario.hbm_blocks is None  # else --hardware/--model give only the latency model
    parts += [] if sized else ["--hbm-blocks", str(scenario.hbm_blocks)]
    parts += ["--hardware", scenario.hardware] if sized or scenario.hardware != DEFAULT_HARDWARE else []
    parts += ["--model", scenario.model] if sized or scenario.model != DEFAULT_MODEL else []
    parts += ["--cpu-blocks", str(scenario.cpu_blocks)] if scenario.cpu_blocks else []
    parts += ["--disk-blocks", str(scenario.disk_blocks)] if scenario.disk_blocks else []
    parts += ["--seed", str(scenario.seed)] if scenario.seed else []
    if scenario.weights != DEFAULT_WEIGHTS and _is_scoring(scenario.router):
        parts += ["--scorer-weights", "{:g},{:g},{:g}".format(*scenario.weights)]
    return " ".join(parts)


def _is_scoring(router: str) -> bool:
    return router_info(router).name in ("prefix", "precise_prefix", "no_hit_lru")


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def policy_names() -> list[str]:
    """Every registered eviction policy, for the page's pickers."""
    return list(POLICIES)


def router_descriptions() -> dict[str, str]:
    """Every registered router with its one-line description."""
    return {r.name: r.description for r in ROUTERS.values()}


def format_names() -> list[str]:
    """Every trace format a reader knows."""
    return list(READERS)
