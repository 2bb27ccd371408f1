"""Compiled statistics for summary.py, equal to numpy's bit for bit (tests/engine/test_summary_stats.py).

A replay summary takes the same few statistics of ~10^4 values many times (every What-if
scenario, sweep config and capacity probe): np.percentile per outcome class (an argsort to group
them, then numpy's checks per call), np.histogram and three bincounts took ~0.8 ms per summary,
an eighth of a one-pod replay. These do the same arithmetic with one partition or pass each.
"""

from __future__ import annotations

import numpy as np
from numba import njit


def percentiles(values: np.ndarray, fractions: np.ndarray) -> np.ndarray:
    """np.percentile(values, 100 * fractions) (numpy's 'linear' method), from one partition."""
    n = values.shape[0]
    virtual = (n - 1) * fractions
    below = np.floor(virtual).astype(np.int64)
    kth = np.unique(np.concatenate((below, np.minimum(below + 1, n - 1), [n - 1])))
    return interpolate(np.partition(values, kth), fractions)


@njit(cache=True)
def interpolate(ordered: np.ndarray, fractions: np.ndarray) -> np.ndarray:
    """The percentiles from `ordered`, sorted at least at the positions percentiles() partitions."""
    n = ordered.shape[0]
    out = np.empty(fractions.shape[0])
    if np.isnan(ordered[n - 1]):  # NOTE: NaN sorts last, and numpy answers NaN for any
        out[:] = np.nan
        return out
    for i in range(fractions.shape[0]):
        virtual = (n - 1) * fractions[i]
        if virtual >= n - 1:
            out[i] = ordered[n - 1]
            continue
        below = np.floor(virtual)
        gamma = virtual - below
        a, b = ordered[int(below)], ordered[int(below) + 1]
        diff = b - a
        # NOTE: numpy's _lerp: from the nearer end, so the result stays monotone in gamma
        out[i] = b - diff * (1.0 - gamma) if gamma >= 0.5 else a + diff * gamma
    return out


@njit(cache=True)
def group_by(values: np.ndarray, groups: np.ndarray, num_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """(starts, grouped): values reordered by group, stably; group g is grouped[starts[g]:starts[g + 1]]."""
    starts = np.zeros(num_groups + 1, np.int64)
    for g in groups:
        starts[g + 1] += 1
    for g in range(num_groups):
        starts[g + 1] += starts[g]
    grouped, fill = np.empty(values.shape[0]), starts[:-1].copy()
    for i in range(values.shape[0]):
        grouped[fill[groups[i]]] = values[i]
        fill[groups[i]] += 1
    return starts, grouped


@njit(cache=True)
def uniform_histogram(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """np.histogram(values, bins=len(edges) - 1, range=(edges[0], edges[-1]))'s counts, edges from it."""
    num_bins = edges.shape[0] - 1
    first, last = edges[0], edges[num_bins]
    counts = np.zeros(num_bins, np.int64)
    for x in values:
        if not (x >= first and x <= last):
            continue
        k = int((x - first) / (last - first) * num_bins)
        if k == num_bins:
            k -= 1
        # NOTE: numpy's own correction of the float index against the edges it returns
        if x < edges[k]:
            k -= 1
        elif k != num_bins - 1 and x >= edges[k + 1]:
            k += 1
        counts[k] += 1
    return counts


@njit(cache=True)
def per_pod_sums(pod: np.ndarray, hits: np.ndarray, num_blocks: np.ndarray, num_pods: int):
    """(requests, hit blocks, blocks) per pod."""
    requests = np.zeros(num_pods, np.int64)
    hit_sums = np.zeros(num_pods, np.int64)
    block_sums = np.zeros(num_pods, np.int64)
    for i in range(pod.shape[0]):
        requests[pod[i]] += 1
        hit_sums[pod[i]] += hits[i]
        block_sums[pod[i]] += num_blocks[i]
    return requests, hit_sums, block_sums
