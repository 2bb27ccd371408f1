"""Small random chained-prefix traces for property tests, and hand-written tiny traces."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from dashboard.core.types import Trace
from dashboard.engine.readers.canonical import build_trace


def trace_from_paths(
    paths: list[list[int]],
    gaps_s: list[float] | None = None,
    block_tokens: int = 4,
    output_tokens: int = 3,
    source: str = "twin",
) -> Trace:
    """A Trace whose request i reads the given block ids (already chained), arrivals 1 s apart by default."""
    gaps = gaps_s if gaps_s is not None else [1.0] * len(paths)
    arrival = np.cumsum(np.asarray(gaps, np.float64))
    counts = np.array([len(p) for p in paths], np.int64)
    flat = np.array([b for p in paths for b in p], np.int64)
    return build_trace(
        arrival_s=arrival,
        block_counts=counts,
        raw_block_ids=flat,
        input_tokens=counts * block_tokens - (counts > 0),
        output_tokens=np.full(len(paths), output_tokens),
        block_tokens=block_tokens,
        source=source,
    )


@st.composite
def chained_traces(draw: st.DrawFn, max_requests: int = 25, max_len: int = 8) -> Trace:
    """Requests that share prefixes the way conversations do: a prefix of an earlier request, then new blocks."""
    prefixes: dict[tuple[int, ...], int] = {}
    symbol_paths: list[tuple[int, ...]] = []
    for _ in range(draw(st.integers(1, max_requests))):
        chain: tuple[int, ...] = ()
        if symbol_paths and draw(st.booleans()):
            base = symbol_paths[draw(st.integers(0, len(symbol_paths) - 1))]
            chain = base[: draw(st.integers(0, len(base)))]
        extra = draw(
            st.lists(st.integers(0, 3), min_size=0 if chain else 1, max_size=max(max_len - len(chain), 0))
        )
        symbol_paths.append(chain + tuple(extra))
    paths = [[prefixes.setdefault(sp[: k + 1], len(prefixes)) for k in range(len(sp))] for sp in symbol_paths]
    gaps = draw(
        st.lists(
            st.sampled_from([0.0, 0.001, 0.01, 0.5, 3.0, 700.0]), min_size=len(paths), max_size=len(paths)
        )
    )
    return trace_from_paths(paths, gaps)


BELADY = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]  # FIFO: 3 frames hit 3 times, 4 frames only twice


def belady_trace(chain_blocks: int = 16, num_cold: int = 60):
    """Belady's string with each page a chain of chain_blocks blocks, then num_cold one-block requests.

    The cold tail widens the search range, so the bisection's first midpoint lands in the FIFO dip.
    """
    requests = [[page * 100 + k for k in range(chain_blocks)] for page in BELADY]
    requests += [[10_000 + i] for i in range(num_cold)]
    return build_trace(
        arrival_s=np.arange(len(requests), dtype=float),
        block_counts=np.array([len(r) for r in requests]),
        raw_block_ids=np.array([b for r in requests for b in r]),
        input_tokens=np.array([4 * len(r) for r in requests]),
        output_tokens=np.zeros(len(requests)),
        block_tokens=4,
        source="belady",
    )
