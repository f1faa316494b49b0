"""The autoreset's copy as a plan: every battle row the restart writes, as addresses and sizes.

A battle that ends restarts from the start state (``BattleBatch._start``) with its prepared
dice (``reset_dice``). The copy was generated code, an element loop per array (some 120
arrays): 65 kB of vector code, loops, remainders and overlap checks, fetched again at each
restart, about 1.3 us of a battle's restart on a 2-core EPYC. ``plan`` writes the same copy
as a table, once per batch, from the arrays' data addresses (a batch never replaces its
arrays: its handle holds them): a row per array, the destination's base and its row's size,
the source's base and the source's step per battle (0: the start state's one battle).
``copy_rows`` runs it for battle ``b``, one loop of word moves, a few hundred bytes of code.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

DST, ROW_BYTES, SRC, SRC_STEP = range(4)  # the plan's columns


def plan(pairs: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The plan (n, 4) int64 of ``pairs`` (destination, source): each destination a
    C-contiguous (B, ...) array whose battle ``b`` takes the source's row ``b`` (a source of
    B rows) or its only row (a source of one row), of the same dtype and row shape."""
    rows = np.zeros((len(pairs), 4), np.int64)
    for k, (dst, src) in enumerate(pairs):
        if (dst.dtype != src.dtype or dst.shape[1:] != src.shape[1:]
                or not dst.flags.c_contiguous or not src.flags.c_contiguous
                or src.shape[0] not in (1, dst.shape[0])):
            raise ValueError(f"restart plan: row {k} copies a {src.dtype} {src.shape} array "
                             f"into a {dst.dtype} {dst.shape} one (C-contiguous, same rows)")
        row = dst[0].nbytes if dst.shape[0] else 0
        rows[k] = (dst.ctypes.data, row, src.ctypes.data, row if src.shape[0] > 1 else 0)
    return rows


@intrinsic
def _move_word(typingctx, dst, src):
    """The 8 bytes at address ``src`` stored at address ``dst`` (unaligned)."""
    def codegen(context, builder, sig, args):
        word = ir.IntType(64).as_pointer()
        value = builder.load(builder.inttoptr(args[1], word), align=1)
        builder.store(value, builder.inttoptr(args[0], word), align=1)
        return context.get_dummy_value()
    return types.void(types.int64, types.int64), codegen


@intrinsic
def _move_byte(typingctx, dst, src):
    """The byte at address ``src`` stored at address ``dst``."""
    def codegen(context, builder, sig, args):
        byte = ir.IntType(8).as_pointer()
        value = builder.load(builder.inttoptr(args[1], byte))
        builder.store(value, builder.inttoptr(args[0], byte))
        return context.get_dummy_value()
    return types.void(types.int64, types.int64), codegen


@nb.njit(cache=True, inline="always")
def copy_rows(rows, b):
    """Battle ``b``'s row of every destination of the plan ``rows`` from its source."""
    for k in range(rows.shape[0]):
        n = rows[k, ROW_BYTES]
        dst = rows[k, DST] + b * n
        src = rows[k, SRC] + b * rows[k, SRC_STEP]
        i = 0
        while i + 8 <= n:
            _move_word(dst + i, src + i)
            i += 8
        while i < n:
            _move_byte(dst + i, src + i)
            i += 1
