"""What the Traces page shows about one trace: the result types of engine/trace_stats.py, here so
pages and services can hold them without importing the engine."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ROOT = -1  # parent id of a first block: the tree's root, "all requests"


@dataclass(frozen=True, eq=False)
class Histogram:
    """counts[k] values fell in [edges[k], edges[k+1])."""

    edges: np.ndarray  # float64 [k+1]
    counts: np.ndarray  # int64 [k]


@dataclass(frozen=True, eq=False)
class Cdf:
    """values[k] is the fractions[k] quantile (empty arrays when there is nothing to measure)."""

    values: np.ndarray  # float64
    fractions: np.ndarray  # float64, same length
    num_values: int


@dataclass(frozen=True, eq=False)
class PrefixTree:
    """The most shared prefixes: node ids are dense block ids, parent ROOT for first blocks."""

    node_ids: np.ndarray  # int64
    parent_ids: np.ndarray  # int64, ROOT or a node id in node_ids
    depth_blocks: np.ndarray  # int64, 0 for a first block
    num_requests: np.ndarray  # int64, requests whose prompt holds this prefix
    prefix_tokens: np.ndarray  # int64, (depth + 1) * block_tokens
    num_requests_total: int  # the root's count


@dataclass(frozen=True, eq=False)
class TraceStats:
    """Everything the Traces page shows about one trace."""

    num_requests: int
    num_block_accesses: int
    num_blocks: int
    block_tokens: int
    duration_s: float
    rate_bin_s: float
    rate_bin_start_s: np.ndarray  # float64
    arrival_rate_per_s: np.ndarray  # float64, requests per second in each bin
    prompt_tokens: Histogram
    blocks_per_request: Histogram
    reuse_gap_s: Cdf
    reuse_gap_requests: Cdf
    ceiling_block_hit_ratio: float
    ceiling_token_hit_ratio: float
    is_sessions_inferred: bool
    num_sessions: int
    turns_per_session: Histogram
    turn_gap_s: Cdf
    prefix_tree: PrefixTree
