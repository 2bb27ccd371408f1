"""LRU stack distances in one pass, with DESIGN.md's prefix semantics: the machinery behind
engine/mrc.py's curves and plan_math.py's hit oracle.

Each access gets a time (0, 1, 2 … in touch order); a block's mark sits at the time of its last
touch, so a block's stack distance (1 = most recent) is the number of marks at or after its time.
The marks are bits, 64 times to a word, and a Fenwick tree counts them per word: touching a run of
blocks that sit side by side in time changes one or two words' counts, not one count per block, and
the tree is 64 times smaller than one over the times (at 10^8 accesses 12 MB, not 800 MB).

A request looks its blocks up head first. A block last touched just before the previous one (the
next block of a chain the same earlier request touched, tail first) is one mark further back than
it, so its distance needs no count: a re-read prompt of hundreds of blocks costs one count.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, word):
    """Set bits of a uint64 (one instruction where the CPU has it)."""

    def codegen(context, builder, signature, args):
        count = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(count, [args[0]])

    return types.int64(word), codegen


@njit(cache=True)
def new_marks(num_accesses: int) -> tuple:
    """(mark bits by time, the Fenwick tree of marks per word) for a trace of num_accesses."""
    words = num_accesses // 64 + 1
    return np.zeros(words, np.uint64), np.zeros(words + 1, np.int64)


@njit(cache=True)
def max_request_blocks(offsets: np.ndarray) -> int:
    """The longest request's block count, at least 1: the size of a per-request scratch array."""
    longest = 1
    for r in range(offsets.shape[0] - 1):
        longest = max(longest, offsets[r + 1] - offsets[r])
    return longest


@njit(cache=True, _nrt=False, inline="always")
def _add(tree: np.ndarray, word: int, delta: int) -> None:
    i = word + 1
    while i < tree.shape[0]:
        tree[i] += delta
        i += i & (-i)


@njit(cache=True, _nrt=False, inline="always")
def _marks_before(bits: np.ndarray, tree: np.ndarray, t: int) -> int:
    """Marks at times < t."""
    word = t >> 6
    total = popcount(bits[word] & ((np.uint64(1) << np.uint64(t & 63)) - np.uint64(1)))
    i = word
    while i > 0:
        total += tree[i]
        i -= i & (-i)
    return total


@njit(cache=True, _nrt=False, inline="always")
def request_distances(
    blocks: np.ndarray,
    last_time: np.ndarray,
    bits: np.ndarray,
    tree: np.ndarray,
    num_marked: int,
    out: np.ndarray,
) -> int:
    """out[k] = the running maximum of the stack distances of blocks[0..k], for the leading blocks seen
    before (a block never seen ends the run: no capacity hits it or any after it); returns how many."""
    running, distance, previous = 0, 0, -2
    for k in range(blocks.shape[0]):
        t = last_time[blocks[k]]
        if t < 0:
            return k
        if t == previous - 1:  # NOTE: previous is a mark (a block's last touch): one more at or after t
            distance += 1
        else:
            distance = num_marked - _marks_before(bits, tree, t)
        previous = t
        running = max(running, distance)
        out[k] = running
    return blocks.shape[0]


@njit(cache=True, _nrt=False, inline="always")
def touch_request(
    blocks: np.ndarray, last_time: np.ndarray, bits: np.ndarray, tree: np.ndarray, num_marked: int, now: int
) -> tuple:
    """Touch blocks tail first (the head ends most recent, as vLLM frees them): each block's mark moves
    to the next time; the tree's counts change once per word. Returns (num_marked, now)."""
    gone_word, gone, new_word, new = -1, 0, -1, 0
    for k in range(blocks.shape[0] - 1, -1, -1):
        b = blocks[k]
        old = last_time[b]
        if old >= 0:
            word = old >> 6
            bits[word] &= ~(np.uint64(1) << np.uint64(old & 63))
            if word != gone_word:
                if gone:
                    _add(tree, gone_word, gone)
                gone_word, gone = word, 0
            gone -= 1
        else:
            num_marked += 1
        now += 1
        last_time[b] = now
        word = now >> 6
        bits[word] |= np.uint64(1) << np.uint64(now & 63)
        if word != new_word:
            if new:
                _add(tree, new_word, new)
            new_word, new = word, 0
        new += 1
    if gone:
        _add(tree, gone_word, gone)
    if new:
        _add(tree, new_word, new)
    return num_marked, now
