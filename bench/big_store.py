"""The big store the scale benchmark reads: 64 pods × 7 days of 15 s scrapes, ~1.9 × 10^8 samples.

Made from one simulated day (bench/big_tile.py) without simulating a week: 8 copies of its 8 pods
(copy c runs the day 3 h × c later, so copies are not in step; copies 0–3 offload to vLLM's CPU
tier, 4–7 to LMCache; copy 0 also exports block residency), repeated for 7 days. Counters keep
counting across days (each day adds the tile's increments), and reset where the tile's pod
restarted, to its increments since that restart, as a restarted process does; gauges repeat. The
EPP routes to all 64 pods; its histograms add the copies' increments. Samples go through the
store's own write path (kvscope's collector writes the same way), two hours per write.

Built once and kept under ~/.cache/kvscope/bench/ ($KVSCOPE_BENCH_CACHE), never in the repo: the
first 6 days as a store file keyed by this generator's and the schema's version, and the tile.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from bench.big_tile import Tile, build_tile
from dashboard.core.types import SeriesSamples
from dashboard.sim.exporter import Series
from dashboard.store.blocks import roll_up
from dashboard.store.db import SCHEMA_DIR, open_store
from dashboard.store.writes import write_series_samples

GENERATOR_VERSION = 1
START = datetime(2026, 11, 23)  # the first day's 00:00 UTC: a parameter of the data
NUM_COPIES = 8
NUM_DAYS = 7
SHIFT_SCRAPES = 720  # 3 h at 15 s
OFFLOADING_COPIES = 4
RESIDENCY_COPIES = 1
WRITE_HOURS = 2
_COUNTER_SUFFIXES = ("_total", "_bucket", "_sum", "_count")


def cache_dir() -> Path:
    """Where generated data is kept between runs."""
    path = Path(os.environ.get("KVSCOPE_BENCH_CACHE", "~/.cache/kvscope/bench")).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class Layout:
    """Every series of the big cluster: its name, labels, tile values, whether it counts, its roll."""

    metrics: list[str]
    labels: list[dict[str, str]]
    tiles: list[np.ndarray]  # counters: increments per scrape; gauges: values
    resets: list[np.ndarray]  # counters: True where the counter restarted
    is_counter: list[bool]


def layout(tile: Tile, num_copies: int = NUM_COPIES) -> Layout:
    """The series of num_copies copies of the tile's pods plus one EPP routing to all of them."""
    out = Layout([], [], [], [], [])
    for c in range(num_copies):
        flavour = tile.offloading if c < OFFLOADING_COPIES else tile.lmcache
        for p, pod_series in enumerate(flavour):
            extra = tile.residency[p] if c < RESIDENCY_COPIES else []
            for s in pod_series + extra:
                _add(out, s, _renamed(s.labels, c, len(flavour)), c * SHIFT_SCRAPES)
    for s in tile.epp:
        endpoint = s.labels.get("endpoint_name") or s.labels.get("pod_name")
        if endpoint is None:  # NOTE: histograms: every copy's requests pass one EPP
            _add_sum(out, s, num_copies)
            continue
        for c in range(num_copies):
            _add(out, s, _renamed(s.labels, c, len(tile.offloading)), c * SHIFT_SCRAPES)
    return out


def day_batches(lay: Layout, day: int, carry: np.ndarray, start: datetime = START) -> Iterator[SeriesSamples]:
    """The day's samples, WRITE_HOURS at a time; carry holds each counter's value before the day
    and is advanced (the first day starts from zeros)."""
    num = len(lay.tiles[0])
    values = np.empty((len(lay.tiles), num))
    for i, (tile, resets) in enumerate(zip(lay.tiles, lay.resets, strict=True)):
        values[i] = _day_values(tile, resets, carry[i]) if lay.is_counter[i] else tile
        carry[i] = values[i, -1] if lay.is_counter[i] else 0.0
    stamps = (
        np.datetime64(start, "us")
        + np.timedelta64(day, "D")
        + np.arange(1, num + 1) * np.timedelta64(15, "s")
    )
    per_write = int(WRITE_HOURS * 3600 / 15)
    for lo in range(0, num, per_write):
        hi = min(lo + per_write, num)
        yield SeriesSamples(
            metrics=lay.metrics,
            labels=lay.labels,
            series=np.repeat(np.arange(len(lay.tiles), dtype=np.int64), hi - lo),
            ts=np.tile(stamps[lo:hi], len(lay.tiles)),
            values=values[:, lo:hi].reshape(-1),
        )


def base_store(days: int = NUM_DAYS - 1) -> tuple[Path, Layout, np.ndarray]:
    """The cached store holding the first `days` days, its layout and the counters' carry after them."""
    lay = layout(cached_tile())
    path = cache_dir() / f"big-{_version()}-{days}d.duckdb"
    state = path.with_suffix(".carry.npy")
    if path.exists() and state.exists():
        return path, lay, np.load(state)
    path.unlink(missing_ok=True)
    carry = np.zeros(len(lay.tiles))
    store = open_store(path)
    try:
        for day in range(days):
            for batch in day_batches(lay, day, carry):
                write_series_samples(store, batch, where="big store")
            roll_up(store, late_s=0.0)  # NOTE: as the collector does after its pulls
    finally:
        store.close()
    np.save(state, carry)
    return path, lay, carry


def cached_tile() -> Tile:
    """The simulated day, simulated once and kept in the cache."""
    path = cache_dir() / f"tile-v{GENERATOR_VERSION}.pickle"
    if path.exists():
        return pickle.loads(path.read_bytes())
    tile = build_tile()
    path.write_bytes(pickle.dumps(tile))
    return tile


def _day_values(increments: np.ndarray, resets: np.ndarray, carry: float) -> np.ndarray:
    """A counter over one day: carry plus the day's increments, or since the day's last restart."""
    total = np.cumsum(increments)
    idx = np.arange(len(increments))
    last = np.maximum.accumulate(np.where(resets, idx, -1))
    since = np.where(last > 0, total[np.maximum(last - 1, 0)], 0.0)
    return np.where(last >= 0, total - since, carry + total)


def _add(out: Layout, s: Series, labels: dict[str, str], shift: int) -> None:
    is_counter = s.metric.endswith(_COUNTER_SUFFIXES)
    inc, resets = _increments(s.values) if is_counter else (s.values, np.zeros(len(s.values), bool))
    out.metrics.append(s.metric)
    out.labels.append(labels)
    out.tiles.append(np.roll(inc, shift))
    out.resets.append(np.roll(resets, shift))
    out.is_counter.append(is_counter)


def _add_sum(out: Layout, s: Series, num_copies: int) -> None:
    inc, _ = _increments(s.values)
    out.metrics.append(s.metric)
    out.labels.append(dict(s.labels))
    out.tiles.append(sum(np.roll(inc, c * SHIFT_SCRAPES) for c in range(num_copies)))
    out.resets.append(np.zeros(len(inc), bool))
    out.is_counter.append(True)


def _increments(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-scrape increments (Prometheus: after a drop, the new value) and where drops are."""
    prev = np.concatenate([[0.0], values[:-1]])
    drops = values < prev
    return np.where(drops, values, values - prev), drops


def _renamed(labels: dict[str, str], copy: int, num_pods: int) -> dict[str, str]:
    """labels with pod names vllm-i of the tile renamed vllm-(copy × num_pods + i)."""
    out = dict(labels)
    for key in ("pod", "endpoint_name", "pod_name"):
        if out.get(key, "").startswith("vllm-"):
            out[key] = f"vllm-{copy * num_pods + int(out[key][5:])}"
    return out


def _version() -> str:
    """This generator's version and a hash of the schema the store was made under."""
    schema = hashlib.sha256(b"".join(f.read_bytes() for f in sorted(SCHEMA_DIR.glob("*.sql")))).hexdigest()
    return f"v{GENERATOR_VERSION}-{schema[:10]}"


def stamp(day: int, start: datetime = START) -> datetime:
    """00:00 UTC of day `day` (0-based) of the big store."""
    return start + timedelta(days=day)
