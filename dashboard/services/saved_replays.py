"""Replays kept in the store: save one (with its miss-ratio curves), list them, load one back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from dashboard.engine.mrc import MissRatioCurve
from dashboard.engine.summary import ReplaySummary
from dashboard.store.db import Store
from dashboard.store.queries import execute_write, run_query


@dataclass(frozen=True)
class SavedReplay:
    """A replay read back from the store: its config and summary as saved, and any curves."""

    run_id: int
    name: str
    sweep: str | None
    created_at: datetime
    trace: str
    config: dict
    summary: dict
    curves: dict[str, MissRatioCurve]


def save_replay(
    store: Store,
    name: str,
    trace_label: str,
    summary: ReplaySummary,
    curves: dict[str, MissRatioCurve] | None = None,
    sweep: str | None = None,
    created_at: datetime | None = None,
) -> int:
    """Store a replay (replacing any earlier run called name) and its curves; returns the run_id."""
    if not name:
        raise ValueError("a saved replay needs a non-empty name (--save NAME)")
    cfg = summary.config
    summary_dict = summary.to_dict()
    row = {
        "run_name": name,
        "sweep": sweep,
        "created_at": created_at or datetime.now(UTC).replace(tzinfo=None),
        "trace": trace_label,
        "num_pods": cfg.get("num_pods", 1),
        "router": cfg.get("router", ""),
        "policy": cfg.get("policy", ""),
        "hbm_blocks": cfg.get("hbm_blocks", 0),
        "cpu_blocks": cfg.get("cpu_blocks", 0),
        "disk_blocks": cfg.get("disk_blocks", 0),
        "requests": summary.requests,
        "block_accesses": summary.block_accesses,
        "block_hits": summary.block_hits,
        "block_hit_ratio": summary.block_hit_ratio,
        "token_hit_ratio": summary.token_hit_ratio,
        "ttft_p50_s": _finite(summary.ttft_s["p50"]),
        "ttft_p90_s": _finite(summary.ttft_s["p90"]),
        "ttft_p99_s": _finite(summary.ttft_s["p99"]),
        "load_imbalance": summary.load_imbalance,
        "elapsed_s": summary.elapsed_s,
        "config_json": json.dumps(cfg, sort_keys=True),
        "summary_json": json.dumps(summary_dict, default=float),
    }
    with store.transaction() as cur:
        execute_write(cur, "replay_mrc_delete_name", run_name=name)
        execute_write(cur, "replay_runs_delete_name", run_name=name)
        execute_write(cur, "replay_runs_insert", **row)
        run_id = int(cur.fetchall()[0][0])
        for policy, curve in (curves or {}).items():
            execute_write(
                cur,
                "replay_mrc_insert",
                run_id=run_id,
                policy=policy,
                capacity_blocks=curve.capacity_blocks.tolist(),
                block_hit_ratio=curve.block_hit_ratio.tolist(),
                token_hit_ratio=curve.token_hit_ratio.tolist(),
            )
    return run_id


def list_replays(store: Store, sweep: str | None = None) -> pd.DataFrame:
    """Saved replays newest first (one row each: config columns and headline figures)."""
    return run_query(store, "replay_runs", sweep=sweep)


def load_replay(store: Store, name: str) -> SavedReplay:
    """The saved replay called name (ValueError listing the saved names if there is none)."""
    rows = run_query(store, "replay_run", run_name=name)
    if rows.empty:
        known = ", ".join(list_replays(store)["name"].head(20)) or "none saved yet"
        raise ValueError(f"no saved replay called {name!r}; saved: {known}")
    row = rows.iloc[0]
    points = run_query(store, "replay_mrc_points", run_id=int(row["run_id"]))
    curves = {
        str(policy): MissRatioCurve(
            g["capacity_blocks"].to_numpy(np.int64),
            g["block_hit_ratio"].to_numpy(float),
            g["token_hit_ratio"].to_numpy(float),
        )
        for policy, g in points.groupby("policy", sort=True)
    }
    return SavedReplay(
        run_id=int(row["run_id"]),
        name=str(row["name"]),
        sweep=None if pd.isna(row["sweep"]) else str(row["sweep"]),
        created_at=pd.Timestamp(row["created_at"]).to_pydatetime(),
        trace=str(row["trace"]),
        config=json.loads(row["config_json"]),
        summary=json.loads(row["summary_json"]),
        curves=curves,
    )


def _finite(value: float) -> float | None:
    return value if np.isfinite(value) else None
