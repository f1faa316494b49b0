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
