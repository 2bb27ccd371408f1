"""Per-cache state shared by every policy kernel: intrusive lists and a lazy min-heap over arrays.

One CacheState holds C caches (pods × tiers, plus the router's approximate views) side by side,
so one compiled kernel drives any mix of policies. Row c of every other 2-D array belongs to cache c.

Invariants (checked by the twins in tests/engine):
- `where[b, c]`: 0 absent, 1 resident (main list / heap), 2 resident in S3-FIFO's small queue,
  3 in a ghost queue (S3-FIFO's ghost, ARC's B1; a remembered key, not resident), 4 in ARC's B2.
  Stored cache-major (a transposed view, so each cache's flags are one contiguous column): with
  blocks numbered by pod as they are served (slab_ids.py), a pod's evictions and lookups then
  touch its own dense column rather than a 24-byte row per block shared by every cache
  (docs/engine.md, "Speed").
- Lists: circular doubly linked lists threaded through `link[c, :, PREV]`/`link[c, :, NEXT]` (int32,
  side by side so one cache line holds both) with one sentinel per list at index num_blocks + L
  (L = 0 main, 1 small, 2 ghost, 3 second ghost). `link[c, sentinel, NEXT]` is the most recently
  pushed block, `link[c, sentinel, PREV]` the oldest. Unlink and push are O(1) and
  allocate nothing. `lsize[c, L]` counts list members; heap policies use `lsize[c, 0]` as their size.
- Heap: a binary min-heap of (hk1, hk2, hblk) entries, ordered by (hk1, hk2). Entries are lazily
  deleted: an entry is live only while its block is resident and its keys equal `k1[c, b]`,
  `k2[c, b]`. When the heap fills it is compacted to the live entries (at most one per block).
- `param[c, :]`: two per-cache integers a policy may keep (ARC: target size p, pending victim list).
- `k1`/`k2` are (C, 0) and the heap arrays (C, 1) when no policy of the state uses them
  (PolicyInfo.keeps_block_keys / uses_heap): no other kernel indexes them.

NOTE: every kernel here and in the policy modules allocates nothing, so it is compiled with
`_nrt=False` (no reference counting). With reference counting, each read of a CacheState member
costs an atomic incref/decref that also stops LLVM from hoisting loads: measured 30-50x slower.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

NUM_LISTS = 4
MAIN, SMALL, GHOST, GHOST2 = 0, 1, 2, 3
PREV, NEXT = 0, 1
WALK_BYTES = 64  # flag bytes that cost as much to zero as one list member to walk (wipe_is_cheaper)

CacheState = namedtuple("CacheState", "where link lsize k1 k2 hk1 hk2 hblk hsize cap pol param")
BlockInfo = namedtuple("BlockInfo", "score next_use tie")  # global per-block keys, see dispatch.py
# One cache's whole state: (block, where flag, k1, k2) of every block it holds or remembers, by
# block id; each list's members oldest first; list sizes and the policy's params. Equal
# snapshots behave alike from then on.
CacheSnapshot = namedtuple("CacheSnapshot", "blocks lists counts")


def make_state(
    capacities: np.ndarray,
    policy_ids: np.ndarray,
    num_blocks: int,
    heap_slots: int,
    key_blocks: int | None = None,
) -> CacheState:
    """Empty state for len(capacities) caches over num_blocks block ids.

    key_blocks is the width of k1/k2: num_blocks (the default) when a policy of the state keeps
    per-block keys (PolicyInfo.keeps_block_keys), else 0: no other kernel reads them, and at 10^7
    blocks × 24 caches they would be 3.8 GB of address space (never touched, so not resident,
    but committed: it counts where overcommit is strict).
    """
    num_caches = int(capacities.shape[0])
    key_blocks = num_blocks if key_blocks is None else key_blocks
    st = CacheState(
        where=np.zeros((num_caches, num_blocks), np.int8).T,  # NOTE: cache-major, see above
        link=np.zeros((num_caches, num_blocks + NUM_LISTS, 2), np.int32),
        lsize=np.zeros((num_caches, NUM_LISTS), np.int64),
        k1=np.zeros((num_caches, key_blocks), np.float64),
        k2=np.zeros((num_caches, key_blocks), np.int64),
        hk1=np.zeros((num_caches, heap_slots), np.float64),
        hk2=np.zeros((num_caches, heap_slots), np.int64),
        hblk=np.zeros((num_caches, heap_slots), np.int32),
        hsize=np.zeros(num_caches, np.int64),
        cap=np.asarray(capacities, np.int64).copy(),
        pol=np.asarray(policy_ids, np.int64).copy(),
        param=np.zeros((num_caches, 2), np.int64),
    )
    for c in range(num_caches):
        empty_lists(st, c)  # NOTE: where is already zeros; clearing it again would touch every page
    return st


def snapshot(st: CacheState, c: int) -> CacheSnapshot:
    """Cache c's state as plain tuples (heap entries stand for their blocks' keys)."""
    held = np.flatnonzero(st.where[:, c])
    keyed = st.k1.shape[1] > 0
    blocks = tuple(
        (int(b), int(st.where[b, c]), float(st.k1[c, b]) if keyed else 0.0, int(st.k2[c, b]) if keyed else 0)
        for b in held
    )
    base = st.link.shape[1] - NUM_LISTS
    lists = []
    for lst in range(NUM_LISTS):  # NOTE: heap policies count in lsize but never link: their lists stay empty
        members, b = [], int(st.link[c, base + lst, PREV])
        while b != base + lst:
            members.append(b)
            b = int(st.link[c, b, PREV])
        lists.append(tuple(members))
    sizes = tuple(int(x) for x in st.lsize[c])
    return CacheSnapshot(blocks, tuple(lists), sizes + (int(st.param[c, 0]), int(st.param[c, 1])))


def wipe_is_cheaper(st: CacheState) -> bool:
    """Whether reset_state should zero the whole flag table rather than walk what the caches hold.

    NOTE: a walk is one dependent load per list member; zeroing streams. Measured after the 8-pod
    replay of the conversation trace (110k members, a 4.4 MB table): 0.76 ms walking, 0.16 ms
    zeroing, though the next replay then starts ~0.3 ms colder. At 10^7 blocks (a 240 MB table
    for 1.2M members) the walk wins.
    """
    held = int(st.lsize.sum()) + int(st.hsize.sum())
    return held * WALK_BYTES > st.where.size


@njit(cache=True, _nrt=False)
def reset_state(st: CacheState, wipe: bool) -> None:
    """Empty every cache: the where flags (the whole table if wipe, else those of list members and
    heap entries, in O(what the caches hold)), then the lists.

    What stays behind is never read: a block's links and keys are written when it enters a cache
    (insert) before any read, and heap slots past hsize are dead.
    """
    if wipe:
        flat = st.where.T.reshape(-1)  # NOTE: the cache-major table as one contiguous run
        for i in range(flat.shape[0]):
            flat[i] = 0
    base = st.link.shape[1] - NUM_LISTS
    for c in range(st.cap.shape[0]):
        if not wipe:
            for lst in range(NUM_LISTS):
                sentinel = base + lst
                b = st.link[c, sentinel, NEXT]
                while b != sentinel:
                    st.where[b, c] = 0
                    b = st.link[c, b, NEXT]
            for i in range(st.hsize[c]):  # every block a heap policy holds has a live entry
                st.where[st.hblk[c, i], c] = 0
        empty_lists(st, c)


@njit(cache=True, _nrt=False)
def clear_cache(st: CacheState, c: int) -> None:
    """Empty cache c: no resident blocks, empty lists, empty heap."""
    for b in range(st.where.shape[0]):
        st.where[b, c] = 0
    empty_lists(st, c)


@njit(cache=True, _nrt=False)
def empty_lists(st: CacheState, c: int) -> None:
    """Empty cache c's lists and heap and reset its params (its where entries are the caller's)."""
    base = st.link.shape[1] - NUM_LISTS
    for lst in range(NUM_LISTS):
        st.link[c, base + lst, PREV] = base + lst
        st.link[c, base + lst, NEXT] = base + lst
        st.lsize[c, lst] = 0
    st.hsize[c] = 0
    st.param[c, 0] = 0
    st.param[c, 1] = 0


@njit(cache=True, _nrt=False, inline="always")
def list_unlink(st: CacheState, c: int, b: int, lst: int) -> None:
    """Remove b from list lst of cache c in O(1)."""
    p = st.link[c, b, PREV]
    n = st.link[c, b, NEXT]
    st.link[c, p, NEXT] = n
    st.link[c, n, PREV] = p
    st.lsize[c, lst] -= 1


@njit(cache=True, _nrt=False, inline="always")
def list_push_front(st: CacheState, c: int, b: int, lst: int) -> None:
    """Make b the most recent member of list lst of cache c."""
    s = st.link.shape[1] - NUM_LISTS + lst
    first = st.link[c, s, NEXT]
    st.link[c, s, NEXT] = b
    st.link[c, b, PREV] = s
    st.link[c, b, NEXT] = first
    st.link[c, first, PREV] = b
    st.lsize[c, lst] += 1


@njit(cache=True, _nrt=False, inline="always")
def list_oldest(st: CacheState, c: int, lst: int) -> int:
    """The oldest member of list lst (the sentinel's prev); caller checks lsize first."""
    return st.link[c, st.link.shape[1] - NUM_LISTS + lst, PREV]


@njit(cache=True, _nrt=False)
def _less(st: CacheState, c: int, i: int, j: int) -> bool:
    a = st.hk1[c, i]
    b = st.hk1[c, j]
    return a < b or (a == b and st.hk2[c, i] < st.hk2[c, j])


@njit(cache=True, _nrt=False)
def _swap(st: CacheState, c: int, i: int, j: int) -> None:
    st.hk1[c, i], st.hk1[c, j] = st.hk1[c, j], st.hk1[c, i]
    st.hk2[c, i], st.hk2[c, j] = st.hk2[c, j], st.hk2[c, i]
    st.hblk[c, i], st.hblk[c, j] = st.hblk[c, j], st.hblk[c, i]


@njit(cache=True, _nrt=False)
def _sift_down(st: CacheState, c: int, i: int) -> None:
    n = st.hsize[c]
    while True:
        left = 2 * i + 1
        if left >= n:
            return
        small = left
        if left + 1 < n and _less(st, c, left + 1, left):
            small = left + 1
        if not _less(st, c, small, i):
            return
        _swap(st, c, i, small)
        i = small


@njit(cache=True, _nrt=False)
def _is_live(st: CacheState, c: int, i: int) -> bool:
    b = st.hblk[c, i]
    return st.where[b, c] == 1 and st.hk1[c, i] == st.k1[c, b] and st.hk2[c, i] == st.k2[c, b]


@njit(cache=True, _nrt=False)
def _compact(st: CacheState, c: int) -> None:
    # NOTE: live entries are marked by negating where[] so a block keeps exactly one entry.
    n = 0
    for i in range(st.hsize[c]):
        if _is_live(st, c, i):
            st.where[st.hblk[c, i], c] = -1
            st.hk1[c, n] = st.hk1[c, i]
            st.hk2[c, n] = st.hk2[c, i]
            st.hblk[c, n] = st.hblk[c, i]
            n += 1
    for i in range(n):
        st.where[st.hblk[c, i], c] = 1
    st.hsize[c] = n
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(st, c, i)


@njit(cache=True, _nrt=False)
def heap_push(st: CacheState, c: int, b: int) -> None:
    """Add an entry for b with its current keys k1[c, b], k2[c, b]."""
    if st.hsize[c] == st.hk1.shape[1]:
        _compact(st, c)
    i = st.hsize[c]
    st.hsize[c] = i + 1
    st.hk1[c, i] = st.k1[c, b]
    st.hk2[c, i] = st.k2[c, b]
    st.hblk[c, i] = b
    while i > 0:
        parent = (i - 1) // 2
        if not _less(st, c, i, parent):
            break
        _swap(st, c, i, parent)
        i = parent


@njit(cache=True, _nrt=False)
def heap_pop_live(st: CacheState, c: int) -> int:
    """Remove and return the resident block with the smallest (k1, k2); -1 if none."""
    while st.hsize[c] > 0:
        live = _is_live(st, c, 0)
        b = st.hblk[c, 0]
        last = st.hsize[c] - 1
        _swap(st, c, 0, last)
        st.hsize[c] = last
        _sift_down(st, c, 0)
        if live:
            return b
    return -1
