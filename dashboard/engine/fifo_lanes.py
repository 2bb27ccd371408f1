"""The state of mrc_fifo.py's LANES capacities held in vector registers across a pass.

At each access a pass reads and updates every capacity's floor and the request's prefix hit. As
numpy loops over the capacities that state lived in an array: a store to a stamp row may alias
it, so LLVM loaded and stored it again at every access. These intrinsics keep it in a stack slot
of <16 x i32> vectors that only they touch at fixed offsets, which LLVM promotes to registers: a
pass at 100M accesses takes 0.80-0.87 s, not 1.24-1.30 s, with the same hits (docs/whatif.md).

The state per capacity: its floor (insertions so far − C: a block is resident iff its stamp is
above it), the floor when the request began, the request's prefix hit so far, and C. A CPU
without 512-bit vectors runs the same code in narrower ones.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

WIDTH = 16  # int32 capacities to a vector
LANES = 32  # capacities a pass serves (mrc_fifo.py says why 32)
NEVER = -(1 << 30)  # a stamp below every cache's oldest insertion: never inserted
_VECTORS = LANES // WIDTH
_FLOOR, _START, _HIT, _CAPACITY = range(4)  # the state's rows, _VECTORS vectors each
_I32, _I64 = ir.IntType(32), ir.IntType(64)
_VEC, _VEC64 = ir.VectorType(_I32, WIDTH), ir.VectorType(_I64, WIDTH)
_STATE = ir.ArrayType(_VEC, 4 * _VECTORS)


def _is_array(ty, dtype, ndim: int) -> bool:
    return isinstance(ty, types.Array) and ty.dtype == dtype and ty.ndim == ndim and ty.layout == "C"


def _slot(builder, state, row: int, vector: int):
    state = builder.bitcast(state, _STATE.as_pointer())
    return builder.gep(state, [_I32(0), _I32(row * _VECTORS + vector)], inbounds=True)


def _vector_at(builder, data, offset, vector: int, vec=_VEC):
    """Pointer to the vector-th vec of data (a pointer to its elements) from element offset on."""
    element = builder.gep(data, [builder.add(offset, _I64(vector * WIDTH))], inbounds=True)
    return builder.bitcast(element, vec.as_pointer())


def _splat(builder, value, vec=_VEC):
    one = builder.insert_element(ir.Constant(vec, ir.Undefined), value, _I32(0))
    return builder.shuffle_vector(
        one, ir.Constant(vec, ir.Undefined), ir.Constant(ir.VectorType(_I32, WIDTH), [0] * WIDTH)
    )


def _as(builder, value, width: int):
    """An integer argument as an integer of width bits (sign-extended or truncated)."""
    if value.type.width < width:
        return builder.sext(value, ir.IntType(width))
    return builder.trunc(value, ir.IntType(width)) if value.type.width > width else value


def _data(context, builder, ty, value):
    return context.make_array(ty)(context, builder, value).data


@intrinsic
def lanes_new(typingctx, caps):
    """A pass's state for the LANES capacities in caps (int32, C order): no insertion yet."""
    if not _is_array(caps, types.int32, 1):
        return None

    def codegen(context, builder, signature, args):
        state = cgutils.alloca_once(builder, _STATE)
        data = _data(context, builder, signature.args[0], args[0])
        for v in range(_VECTORS):
            capacity = builder.load(_vector_at(builder, data, _I64(0), v), align=4)
            builder.store(capacity, _slot(builder, state, _CAPACITY, v))
            builder.store(builder.neg(capacity), _slot(builder, state, _FLOOR, v))
        return builder.bitcast(state, ir.IntType(8).as_pointer())

    return types.voidptr(caps), codegen


@intrinsic
def lanes_begin(typingctx, state, num_blocks):
    """A request of num_blocks blocks begins: its floors noted, its prefix hit all of it so far."""

    def codegen(context, builder, signature, args):
        hit = _splat(builder, _as(builder, args[1], 32))
        for v in range(_VECTORS):
            builder.store(
                builder.load(_slot(builder, args[0], _FLOOR, v)), _slot(builder, args[0], _START, v)
            )
            builder.store(hit, _slot(builder, args[0], _HIT, v))
        return context.get_dummy_value()

    return types.void(state, num_blocks), codegen


@intrinsic
def lanes_visit(typingctx, state, stamps, row, is_new, at):
    """The request's block at position at, visited (tail first): stamps[row] holds its stamp at each
    capacity (NEVER at all of them if is_new: the row held another block's). Where it was not resident
    when the request began, the prefix hit ends at at; where it is absent, it is inserted."""
    if not _is_array(stamps, types.int32, 2):
        return None

    def codegen(context, builder, signature, args):
        state, is_new = args[0], args[3]
        data = _data(context, builder, signature.args[1], args[1])
        offset = builder.mul(_as(builder, args[2], 64), _I64(LANES))
        at = _splat(builder, _as(builder, args[4], 32))
        never, one, zero = (ir.Constant(_VEC, [x] * WIDTH) for x in (NEVER, 1, 0))
        for v in range(_VECTORS):
            pointer = _vector_at(builder, data, offset, v)
            stamp = builder.select(is_new, never, builder.load(pointer, align=4))
            floor = builder.load(_slot(builder, state, _FLOOR, v))
            start = builder.load(_slot(builder, state, _START, v))
            capacity = builder.load(_slot(builder, state, _CAPACITY, v))
            # NOTE: resident before the request: inserted, but not by this request (a block may repeat)
            before = builder.and_(
                builder.icmp_signed(">", stamp, start),
                builder.icmp_signed("<=", stamp, builder.add(start, capacity)),
            )
            hit = builder.load(_slot(builder, state, _HIT, v))
            builder.store(builder.select(before, hit, at), _slot(builder, state, _HIT, v))
            absent = builder.icmp_signed("<=", stamp, floor)
            floor = builder.add(floor, builder.select(absent, one, zero))
            builder.store(floor, _slot(builder, state, _FLOOR, v))
            builder.store(builder.select(absent, builder.add(floor, capacity), stamp), pointer, align=4)
        return context.get_dummy_value()

    return types.void(state, stamps, row, is_new, at), codegen


@intrinsic
def lanes_end(typingctx, state, block_hits, token_hits, block_tokens, prompt):
    """The request ends: block_hits += its prefix hit, token_hits += min(hit × block_tokens, prompt),
    per capacity (int64, C order)."""
    if not (_is_array(block_hits, types.int64, 1) and _is_array(token_hits, types.int64, 1)):
        return None

    def codegen(context, builder, signature, args):
        blocks = _data(context, builder, signature.args[1], args[1])
        tokens = _data(context, builder, signature.args[2], args[2])
        per_block = _splat(builder, _as(builder, args[3], 64), _VEC64)
        prompt = _splat(builder, _as(builder, args[4], 64), _VEC64)
        for v in range(_VECTORS):
            hit = builder.sext(builder.load(_slot(builder, args[0], _HIT, v)), _VEC64)
            total = _vector_at(builder, blocks, _I64(0), v, _VEC64)
            builder.store(builder.add(builder.load(total, align=8), hit), total, align=8)
            hit_tokens = builder.mul(hit, per_block)
            hit_tokens = builder.select(builder.icmp_signed("<", hit_tokens, prompt), hit_tokens, prompt)
            total = _vector_at(builder, tokens, _I64(0), v, _VEC64)
            builder.store(builder.add(builder.load(total, align=8), hit_tokens), total, align=8)
        return context.get_dummy_value()

    return types.void(state, block_hits, token_hits, block_tokens, prompt), codegen
