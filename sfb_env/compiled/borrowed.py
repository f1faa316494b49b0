"""``borrow``: an array argument without reference counting, for the hot kernels' callees.

A leaf module (numba and llvmlite only), so every kernel module may import it without an
import cycle."""

from __future__ import annotations

import numba as nb
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def borrow(typingctx, arr):
    """``arr`` without its memory owner (meminfo and parent NULL): numba's incref and decref
    of it are no-ops instead of atomic operations. Only for an argument of a callee that does
    not keep it (the caller's ``arr`` keeps the memory alive for the call): the hot kernels
    pass tens of arrays to each call, and numba increfs and decrefs every one of them."""
    if not isinstance(arr, nb.types.Array):
        return arr(arr), lambda context, builder, sig, args: args[0]

    def codegen(context, builder, sig, args):
        out = context.make_array(arr)(context, builder, value=args[0])
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()
    return arr(arr), codegen


@intrinsic
def opaque(typingctx, i):
    """``i`` as a value LLVM cannot trace (an empty inline-asm copy): a loop over battles
    indexes hundreds of arrays by ``b``, and with ``b`` a plain induction variable LLVM's loop
    strength reduction keeps one pointer per array, all spilled, and advances every one of
    them on each pass, even one that does nothing (measured: 115 ns a battle in the step)."""
    if not isinstance(i, nb.types.Integer):
        return None

    def codegen(context, builder, sig, args):
        ty = args[0].type
        fnty = ir.FunctionType(ty, [ty])
        return builder.asm(fnty, "", "=r,0", [args[0]], False, "opaque")
    return i(i), codegen


@intrinsic
def copy_row(typingctx, dst, b, src, a):
    """``dst[b] = src[a]`` for two C-contiguous arrays of one type with two axes or more: one
    ``memcpy`` of the row's ``strides[0]`` bytes. ``copy_battle``'s restart copies some 120
    rows; element loops compiled to 65 kB of code (vector loops with their edges), fetched
    again at every restart."""
    if not (isinstance(dst, nb.types.Array) and dst.ndim >= 2 and dst.layout == "C"
            and isinstance(src, nb.types.Array) and src.dtype == dst.dtype
            and src.ndim == dst.ndim and src.layout == "C"
            and isinstance(b, nb.types.Integer) and isinstance(a, nb.types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        to, from_ = (context.make_array(t)(context, builder, value=v)
                     for t, v in ((sig.args[0], args[0]), (sig.args[2], args[2])))
        row = cgutils.unpack_tuple(builder, to.strides)[0]  # (C order: the row's bytes)
        int8p = ir.IntType(8).as_pointer()
        b_, a_ = (context.cast(builder, args[i], sig.args[i], nb.types.intp) for i in (1, 3))
        target = builder.gep(builder.bitcast(to.data, int8p), [builder.mul(b_, row)])
        source = builder.gep(builder.bitcast(from_.data, int8p), [builder.mul(a_, row)])
        cgutils.raw_memcpy(builder, target, source, row, 1)
        return context.get_dummy_value()
    return nb.types.void(dst, b, src, a), codegen
