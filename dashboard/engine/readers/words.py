"""Bytes a word at a time, for the compiled scan: which of 64 bytes are in a range, and up to 8 digits' value.

Reading an id a byte at a time is a chain (each byte decides where the next one is); finding where
every digit run in 64 bytes starts with one vector compare, and reading each run's value from one
8-byte load, leaves the runs independent, so the CPU reads several at once (docs/traces.md has
what it gains). The loads are unaligned and read past the last byte that matters: the caller keeps
PAD readable bytes after the end of what it scans.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

PAD = 64  # bytes after a scanned range that byte_mask and load_word may read
_ASCII_ZEROS = np.uint64(0x3030303030303030)


@intrinsic
def byte_mask(typingctx, buf, i, lo, width):
    """Bit j set iff lo <= buf[i + j] < lo + width, for j in 0..63: one vector compare (lo and
    width fit a byte; the subtraction wraps, so one unsigned compare tests both bounds)."""

    def codegen(context, builder, signature, args):
        array, index, low, span = args
        data = context.make_array(signature.args[0])(context, builder, array).data
        byte, lanes = ir.IntType(8), ir.VectorType(ir.IntType(8), 64)
        vector = builder.load(builder.bitcast(builder.gep(data, [index]), lanes.as_pointer()), align=1)
        zeros = ir.Constant(ir.VectorType(ir.IntType(32), 64), [0] * 64)

        def splat(value):
            one = builder.insert_element(
                ir.Constant(lanes, ir.Undefined), builder.trunc(value, byte), ir.IntType(32)(0)
            )
            return builder.shuffle_vector(one, ir.Constant(lanes, ir.Undefined), zeros)

        inside = builder.icmp_unsigned("<", builder.sub(vector, splat(low)), splat(span))
        return builder.bitcast(inside, ir.IntType(64))

    return types.uint64(buf, i, lo, width), codegen


@intrinsic
def load_word(typingctx, buf, i):
    """buf[i : i + 8] as one little-endian uint64 (an unaligned load)."""

    def codegen(context, builder, signature, args):
        array, index = args
        data = context.make_array(signature.args[0])(context, builder, array).data
        pointer = builder.bitcast(builder.gep(data, [index]), ir.IntType(64).as_pointer())
        return builder.load(pointer, align=1)

    return types.uint64(buf, i), codegen


@njit(cache=True, inline="always")
def lowest_bit(mask: np.uint64) -> int:
    """Index of mask's lowest set bit (mask is not 0)."""
    return np.int64(trailing_zeros(mask))


@njit(cache=True, inline="always")
def leading_digits(word: np.uint64) -> int:
    """How many of word's bytes, from its first, are ASCII digits (8 if all are)."""
    # NOTE: a byte's top bit ends up set iff it is 0x30..0x39: + 0x50 carries it there from 0x30 on,
    # + 0x46 from 0x3A on, and a byte of 0x80 or more has it already. Carries run toward later
    # bytes and digits make none, so every byte up to the first other one is judged right.
    digits = (word + np.uint64(0x5050505050505050)) & ~(word + np.uint64(0x4646464646464646)) & ~word
    other = ~digits & np.uint64(0x8080808080808080)
    return 8 if other == 0 else np.int64(trailing_zeros(other)) >> 3


@njit(cache=True, inline="always")
def digits_value(word: np.uint64, length: int) -> int:
    """The number the first length (1..8) bytes of word spell, all of them ASCII digits."""
    # NOTE: the digits moved to the top bytes (zeros before them), then pairs, quads and octets
    # summed by multiplies: simdjson's parse_eight_digits_unrolled.
    v = (word - _ASCII_ZEROS) << np.uint64(64 - 8 * length)
    v = (v * np.uint64(10)) + (v >> np.uint64(8))
    v = ((v & np.uint64(0x00FF00FF00FF00FF)) * np.uint64(6553601)) >> np.uint64(16)
    v = ((v & np.uint64(0x0000FFFF0000FFFF)) * np.uint64(42949672960001)) >> np.uint64(32)
    return np.int64(v)
