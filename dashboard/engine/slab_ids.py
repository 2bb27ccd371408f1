"""Block ids renumbered as a multi-pod replay runs, so that each pod's blocks sit close together.

Every cache keeps its links and flags in arrays indexed by block id. Ids as a trace reads them
(first appearance) interleave the pods' blocks, so each of a pod's caches touches a line or a
page for every block the whole cluster reads, and 8 pods' caches spill out of the CPU's caches.
Here a block gets its replay id when it is first served, from a slab of ids its pod owns (a new
slab when that one is full): a pod's caches then touch mostly their own slabs. A block no pod
has served yet reads as the unseen id (the id space's last, which no cache ever holds), so the
router sees it absent everywhere, as it was.

Only for list policies (no heap, no per-block keys): a heap's compaction walks blocks in id order
and block keys are indexed by trace id, while lists never compare ids, so their outcome is the same
under any numbering, array for array (tests/engine/test_slab_ids.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# NOTE: ids per slab, 32 KB of one cache's links. The bench's 8-pod row with its blocks renumbered
# ahead by the pod each is first served on: 10.5 ms with 512-id slabs, 10.0 with 4,096, 10.1 with
# one range per pod, 13.2 as read.
MAX_SLAB = 4096


def slab_size(num_blocks: int, num_pods: int) -> int:
    """Ids per slab: MAX_SLAB, or less on a small trace, so the id space grows by at most num_blocks
    (or one id per pod, where there are more pods than blocks)."""
    return max(1, min(MAX_SLAB, num_blocks // max(num_pods, 1)))


def id_space(num_blocks: int, num_pods: int) -> int:
    """How many replay ids the caches must index: every slab the pods can open, and the unseen id."""
    return num_blocks + num_pods * slab_size(num_blocks, num_pods) + 1


def new_slabs(num_blocks: int, num_pods: int) -> tuple[np.ndarray, np.ndarray]:
    """(replay id of each trace block, the unseen id until served; per pod its slab's next and end id, then
    the next free slab's first id and the slab size in row num_pods)."""
    slabs = np.zeros((num_pods + 1, 2), np.int64)
    slabs[num_pods, 1] = slab_size(num_blocks, num_pods)
    return np.full(num_blocks, unseen_id(num_blocks, num_pods), np.int32), slabs


def unseen_id(num_blocks: int, num_pods: int) -> int:
    """The id every block reads as until a pod serves it: the last of the id space, held by no cache."""
    return id_space(num_blocks, num_pods) - 1


@njit(cache=True, _nrt=False, inline="always")
def replay_ids(blocks: np.ndarray, ids: np.ndarray, unseen: int, out: np.ndarray) -> tuple:
    """(out[:len(blocks)] = each block's replay id, unseen for a block no pod has served yet;
    whether any was)."""
    m, fresh = blocks.shape[0], False
    for k in range(m):
        out[k] = ids[blocks[k]]
        fresh |= out[k] == unseen
    return out[:m], fresh


@njit(cache=True, _nrt=False, inline="always")
def give_ids(
    blocks: np.ndarray, local: np.ndarray, ids: np.ndarray, unseen: int, pod: int, slabs: np.ndarray
) -> None:
    """Give each block of the request still unseen an id from pod's slab (opening slabs as they fill)."""
    free = slabs.shape[0] - 1
    for k in range(blocks.shape[0]):
        if local[k] != unseen:
            continue
        r = ids[blocks[k]]  # NOTE: a block listed twice in one request got its id at its first place
        if r == unseen:
            if slabs[pod, 0] == slabs[pod, 1]:
                slabs[pod, 0] = slabs[free, 0]
                slabs[pod, 1] = slabs[free, 0] + slabs[free, 1]
                slabs[free, 0] += slabs[free, 1]
            r = slabs[pod, 0]
            slabs[pod, 0] += 1
            ids[blocks[k]] = r
        local[k] = r


def trace_ids(ids: np.ndarray, space: int) -> np.ndarray:
    """The trace's block id of each replay id (−1 where none was given): to report what a cache holds."""
    back = np.full(space, -1, np.int64)
    given = np.flatnonzero(ids != space - 1)
    back[ids[given]] = given
    return back
