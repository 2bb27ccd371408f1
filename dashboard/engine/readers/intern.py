"""Dense block ids by first appearance: raw 64-bit ids → 0..k-1, in one pass, growing as ids arrive.

While every id so far is the next counter value or an earlier one (the published Mooncake traces
number their hash_ids that way), an id is its own number: the tables stay empty
and interning is a comparison (DENSE mode). The first id breaking that fills the tables with the
ids seen so far, numbered as they were, and interning goes on through them.
Small non-negative ids (Mooncake's and the generators' are counters from 0) index a direct table,
a few bytes per id and cache-friendly for runs of consecutive ids; any other id goes through an
open-addressing hash table (Fibonacci hashing, linear probing, load at most 1/2). Invariant: an
id below the table's size lives in the table, any other id in the hash; the table grows only
while it stays within a few slots per distinct id seen, taking over the hash's ids it now covers.
Both store dense id + 1, so a zero slot is an unseen id and a table grows by a zero-filled resize.
The numbering depends only on the order ids are interned, so a reader that interns as it reads
gets exactly what dense_ids gives on the whole array.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

DIRECT_LIMIT = 1 << 26  # at most 256 MiB of direct table
SLOTS_PER_ID, BASE_SLOTS = 4, 1 << 16  # the table grows to cover an id below 4 × distinct ids + 64Ki
FULL_TABLE, FULL_HASH, LEAVE_DENSE = 5, 6, 7  # statuses of intern_ids (scan_kernel's start at 0)
NUM_IDS, NUM_HASHED, HASH_BITS, NEED, DENSE = range(5)  # slots of Interner.io
_FILL_IDS = 1 << 20  # leaving DENSE mode interns the ids seen so far this many at a time

Interner = namedtuple("Interner", "table hkeys hvals io")


def new_interner(hash_bits: int = 10, dense: bool = True) -> Interner:
    """Empty tables: a direct table of BASE_SLOTS slots and a hash of 2**hash_bits; in DENSE mode
    unless dense is False."""
    io = np.zeros(5, np.int64)
    io[HASH_BITS] = hash_bits
    io[DENSE] = dense
    return Interner(
        np.zeros(BASE_SLOTS, np.int32),
        np.zeros(1 << hash_bits, np.int64),
        np.zeros(1 << hash_bits, np.int32),
        io,
    )


def grow(ix: Interner, status: int) -> Interner:
    """ix with room for what intern_ids asked: at least io[NEED] slots, and at least twice as many;
    or, leaving DENSE mode, tables holding the ids seen so far."""
    if status == LEAVE_DENSE:
        return _filled(int(ix.io[NUM_IDS]))
    if status == FULL_TABLE:
        table, old = ix.table, ix.table.shape[0]
        table.resize(min(max(2 * old, int(ix.io[NEED])), DIRECT_LIMIT), refcheck=False)  # zero: unseen
        if ix.io[NUM_HASHED] == 0:  # NOTE: nothing to take over (counter ids never reach the hash)
            return ix._replace(table=table)
        hkeys, hvals, moved = take_over(table, old, ix.hkeys, ix.hvals, int(ix.io[HASH_BITS]))
        ix.io[NUM_HASHED] -= moved
        return Interner(table, hkeys, hvals, ix.io)
    assert status == FULL_HASH, status
    ix.io[HASH_BITS] = max(int(ix.io[HASH_BITS]) + 1, int(ix.io[NEED] - 1).bit_length())
    hkeys, hvals, _ = rehash(ix.hkeys, ix.hvals, int(ix.io[HASH_BITS]), -1, -1, ix.table)
    return ix._replace(hkeys=hkeys, hvals=hvals)


def intern_all(ix: Interner, raw: np.ndarray, out: np.ndarray, k: int) -> Interner:
    """Intern raw (int64) into out[k:], growing ix as needed; returns the (possibly new) ix."""
    j = 0
    while True:
        status, j = intern_ids(raw, raw.shape[0], ix, out, k, j)
        if status == 0:
            return ix
        ix = grow(ix, status)


def _filled(num_ids: int) -> Interner:
    """Tables out of DENSE mode holding ids 0..num_ids-1, each its own number (as interned in order)."""
    ix = new_interner(dense=False)
    scratch = np.empty(min(num_ids, _FILL_IDS), np.int32)
    for lo in range(0, num_ids, _FILL_IDS):
        ix = intern_all(ix, np.arange(lo, min(lo + _FILL_IDS, num_ids), dtype=np.int64), scratch, 0)
    return ix


def dense_ids(raw: np.ndarray) -> tuple[np.ndarray, int]:
    """raw int64 ids as dense int32 ids by first appearance, and how many distinct ids there are."""
    raw = np.asarray(raw, np.int64)
    out = np.empty(raw.shape[0], np.int32)
    ix = intern_all(new_interner(), raw, out, 0)
    return out, int(ix.io[NUM_IDS])


@njit(cache=True)
def intern_ids(raw: np.ndarray, m: int, ix: tuple, ids: np.ndarray, k: int, start: int) -> tuple:
    """ids[k + j] = the dense id of raw[j] for j from start, numbering each new id next: (status, j).

    Status 0: all done. FULL_TABLE / FULL_HASH / LEAVE_DENSE: raw[j] needs grow(ix, status) (slots
    in io[NEED]) first; call again from j (or from 0: interning an id twice gives it the same number).
    """
    if ix.io[DENSE]:
        return _intern_dense(raw, m, ix.io, ids, k, start)
    size = ix.table.shape[0]
    reach = min(SLOTS_PER_ID * (ix.io[NUM_IDS] + m) + BASE_SLOTS, DIRECT_LIMIT)
    mask = ix.hvals.shape[0] - 1
    bits = ix.io[HASH_BITS]
    for j in range(start, m):
        v = raw[j]
        if 0 <= v < size:
            d = ix.table[v]
            if d == 0:
                ix.io[NUM_IDS] += 1
                d = ix.io[NUM_IDS]
                ix.table[v] = d
        elif size <= v < reach:
            ix.io[NEED] = v + 1
            return FULL_TABLE, j
        else:
            slot = hash_slot(v, bits)
            while ix.hvals[slot] != 0 and ix.hkeys[slot] != v:
                slot = (slot + 1) & mask
            d = ix.hvals[slot]
            if d == 0:
                if 2 * (ix.io[NUM_HASHED] + 1) > ix.hvals.shape[0]:
                    ix.io[NEED] = 2 * (ix.io[NUM_HASHED] + 1)
                    return FULL_HASH, j
                ix.io[NUM_IDS] += 1
                ix.io[NUM_HASHED] += 1
                d = ix.io[NUM_IDS]
                ix.hkeys[slot] = v
                ix.hvals[slot] = d
        ids[k + j] = d - 1
    return 0, m


@njit(cache=True, inline="always")
def _intern_dense(raw: np.ndarray, m: int, io: np.ndarray, ids: np.ndarray, k: int, start: int) -> tuple:
    """intern_ids in DENSE mode: each id is the next counter value or an earlier one, and is its own number."""
    n = io[NUM_IDS]
    for j in range(start, m):
        v = raw[j]
        if v == n:
            n += 1
        elif not 0 <= v < n:
            io[NUM_IDS] = n
            return LEAVE_DENSE, j
        ids[k + j] = v
    io[NUM_IDS] = n
    return 0, m


def dense_continues(checks: list[tuple[int, int, int]], num_ids: int) -> tuple[int, int]:
    """Of consecutive runs of ids, each summarised as scan_kernel.scan_raw does (the least id or 0,
    the most ids that must come before, the largest id), how many in a row keep DENSE mode after
    num_ids ids, and the number of ids after them."""
    for j, (lo, need, hi) in enumerate(checks):
        if lo < 0 or need >= num_ids:
            return j, num_ids
        num_ids = max(num_ids, hi + 1)
    return len(checks), num_ids


@njit(cache=True, inline="always")
def hash_slot(key: int, bits: int) -> int:
    """Fibonacci hashing: the top bits of key × 2^64/φ."""
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))


@njit(cache=True)
def rehash(hkeys: np.ndarray, hvals: np.ndarray, bits: int, lo: int, hi: int, table: np.ndarray) -> tuple:
    """The hash's entries in 2**bits slots, except keys in lo..hi-1, which move to table: (keys, vals, moved)."""
    new_keys = np.zeros(1 << bits, np.int64)
    new_vals = np.zeros(1 << bits, np.int32)
    mask = new_vals.shape[0] - 1
    moved = 0
    for j in range(hvals.shape[0]):
        if hvals[j] == 0:
            continue
        key = hkeys[j]
        if lo <= key < hi:
            table[key] = hvals[j]
            moved += 1
            continue
        slot = hash_slot(key, bits)
        while new_vals[slot] != 0:
            slot = (slot + 1) & mask
        new_keys[slot] = key
        new_vals[slot] = hvals[j]
    return new_keys, new_vals, moved


def take_over(table: np.ndarray, old_size: int, hkeys: np.ndarray, hvals: np.ndarray, bits: int) -> tuple:
    """Move the hash's ids in old_size..len(table)-1 into the grown table: (hkeys, hvals, how many moved)."""
    return rehash(hkeys, hvals, bits, old_size, table.shape[0], table)
