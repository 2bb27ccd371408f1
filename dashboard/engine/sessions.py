"""Session structure for the learned policy and session-affinity routing, known or inferred."""

from __future__ import annotations

import numpy as np
from numba import njit

from dashboard.core.types import UNKNOWN, Trace


@njit(cache=True)
def infer_parents(offsets: np.ndarray, block_ids: np.ndarray, num_blocks: int) -> np.ndarray:
    """Parent of each request: the latest earlier request holding its deepest shared block (-1 if none).

    NOTE: ids are chained prefix hashes, so sharing the block at position k means sharing the
    whole prefix up to k. A follow-up turn repeats the previous prompt except its partial last
    block, so "whole previous prompt is a prefix" would miss most turns. Position 0 alone does not
    count: many traces share one root block (a system prompt) across all sessions.
    """
    n = offsets.shape[0] - 1
    last_req = np.full(num_blocks, -1, np.int64)
    parent = np.full(n, -1, np.int64)
    for i in range(n):
        lo, hi = offsets[i], offsets[i + 1]
        for k in range(hi - 1, lo, -1):
            if last_req[block_ids[k]] >= 0:
                parent[i] = last_req[block_ids[k]]
                break
        for k in range(lo, hi):
            last_req[block_ids[k]] = i
    return parent


def _parents_from_ids(session_ids: np.ndarray) -> np.ndarray:
    n = session_ids.shape[0]
    parent = np.full(n, -1, np.int64)
    order = np.lexsort((np.arange(n), session_ids))
    same = (session_ids[order][1:] == session_ids[order][:-1]) & (session_ids[order][1:] != UNKNOWN)
    parent[order[1:][same]] = order[:-1][same]
    return parent


@njit(cache=True)
def _roots_and_turns(parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = parent.shape[0]
    root = np.arange(n).astype(np.int64)
    turn = np.zeros(n, np.int64)
    for i in range(n):
        p = parent[i]
        if p >= 0:
            root[i] = root[p]
            turn[i] = turn[p] + 1
    return root, turn


def session_structure(trace: Trace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(parent request, session key, turn) per request, from session ids or else inferred from block chains."""
    if trace.num_requests and bool(np.any(trace.session_ids != UNKNOWN)):
        parent = _parents_from_ids(trace.session_ids)
    else:
        parent = infer_parents(trace.offsets, trace.block_ids, trace.num_blocks)
    root, turn = _roots_and_turns(parent)
    known = trace.session_ids != UNKNOWN
    session = np.where(known, trace.session_ids, -1 - root)
    turns = np.where(trace.turns != UNKNOWN, trace.turns.astype(np.int64), turn)
    return parent, session, turns
