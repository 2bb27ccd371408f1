"""The learned policy's block rules: two kinds of block it learns, online, are seldom read again.

A session's next turn repeats its previous prompt, so every block of that prompt comes back when
the session continues, except:
- **a partial last block**: its tokens are followed by the reply in the next prompt, so the next
  prompt's block at that position hashes differently (on the Mooncake conversation trace about
  3% come back in the session's next request);
- **a superseded tail**: when a session's next request shares only the first L blocks of the
  previous one (an edited or regenerated turn), the previous request's blocks from L on, which
  only a later sibling could read again.
Each kind keeps an online rate of how often its blocks were read again, counting only what is
resolved by then (prior_weight pseudo-observations at 1/2 behind it), and its blocks' scores drop
by log(rate): a partial last block when its request stores it, a superseded tail when the next
request arrives (the cache re-keys those blocks, `learned.rescore`). Never read: anything after
the request being served (tests/engine/test_learned_causality.py).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

# Per request i: log rate for i's own partial last block (0 when its last block is full); the
# request whose tail i supersedes (-1: none), the position it is superseded from, and log rate.
BlockRules = namedtuple("BlockRules", "tail_adjust sup_parent sup_from sup_adjust")


def no_block_rules(num_requests: int) -> BlockRules:
    """Rules that change nothing (every policy but the learned one, or the rules switched off)."""
    return BlockRules(
        np.zeros(num_requests), np.full(num_requests, -1, np.int64), np.zeros(num_requests, np.int64),
        np.zeros(num_requests),
    )  # fmt: skip


def block_rules(
    arrival_s: np.ndarray,
    offsets: np.ndarray,
    block_ids: np.ndarray,
    input_tokens: np.ndarray,
    block_tokens: int,
    parent: np.ndarray,
    horizon_s: float,
    prior_weight: float,
    num_blocks: int,
) -> BlockRules:
    """The rules for every request, each rate learned from what was resolved by that request."""
    n = arrival_s.shape[0]
    sizes = np.diff(offsets)
    shared = shared_prefix_lengths(offsets, block_ids, parent)
    partial = input_tokens < sizes * block_tokens
    has_parent = parent >= 0
    prev = np.maximum(parent, 0)
    # A partial last block's event resolves when the session's next request arrives.
    tail_events = np.flatnonzero(has_parent & partial[prev] & (sizes[prev] > 0))
    tail_read = (shared[tail_events] == sizes[prev[tail_events]]).astype(np.float64)
    tail_rate = _rates_by_request(tail_events, tail_read, n, prior_weight)
    tail_adjust = np.where(partial & (sizes > 0), np.log(tail_rate), 0.0)
    sup = np.flatnonzero(has_parent & (shared < sizes[prev]))
    first_reader = next_reader_after(offsets, block_ids, parent, shared, num_blocks)[sup]
    in_time = (first_reader >= 0) & (arrival_s[np.maximum(first_reader, 0)] <= arrival_s[sup] + horizon_s)
    resolved = np.where(
        in_time, first_reader, np.searchsorted(arrival_s, arrival_s[sup] + horizon_s, "right")
    )
    sup_rate = _rates_by_request(resolved, in_time.astype(np.float64), n, prior_weight)
    sup_parent = np.full(n, -1, np.int64)
    sup_parent[sup] = parent[sup]
    return BlockRules(tail_adjust, sup_parent, shared.astype(np.int64), np.log(sup_rate))


def _rates_by_request(resolved_at: np.ndarray, label: np.ndarray, n: int, prior_weight: float) -> np.ndarray:
    """Per request i, the share of events resolved at request index <= i that were read again (with the prior)."""
    order = np.argsort(resolved_at, kind="stable")
    done = np.searchsorted(resolved_at[order], np.arange(n), "right")
    read = np.concatenate(([0.0], np.cumsum(label[order])))[done]
    return (read + 0.5 * prior_weight) / (done + prior_weight)


@njit(cache=True)
def shared_prefix_lengths(offsets: np.ndarray, block_ids: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Leading blocks each request shares with its parent (0 without one)."""
    n = parent.shape[0]
    out = np.zeros(n, np.int64)
    for i in range(n):
        p = parent[i]
        if p < 0:
            continue
        a, b = offsets[p], offsets[i]
        m = min(offsets[p + 1] - a, offsets[i + 1] - b)
        k = 0
        while k < m and block_ids[a + k] == block_ids[b + k]:
            k += 1
        out[i] = k
    return out


@njit(cache=True)
def next_reader_after(
    offsets: np.ndarray, block_ids: np.ndarray, parent: np.ndarray, shared: np.ndarray, num_blocks: int
) -> np.ndarray:
    """Per request i with a superseded parent tail, the first request after i reading its first
    superseded block (-1: none). Reads the whole trace: only block_rules' resolution uses it."""
    n = parent.shape[0]
    next_req = np.full(num_blocks, -1, np.int64)
    out = np.full(n, -1, np.int64)
    for i in range(n - 1, -1, -1):
        p = parent[i]
        if p >= 0 and offsets[p] + shared[i] < offsets[p + 1]:
            out[i] = next_req[block_ids[offsets[p] + shared[i]]]
        for k in range(offsets[i], offsets[i + 1]):
            next_req[block_ids[k]] = i
    return out
