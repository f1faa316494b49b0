"""Random masked actions for a batch: per (battle, agent, component) a uniform open value.

Used by ``BattleBatch.sample_actions`` (the benchmarks' random play, the vector env's random
opponents). ``sample_masked`` is the plain function; ``MaskedSampler`` keeps its buffers and
the compiled entry points for one batch's arrays, so a loop that samples every step pays
neither an allocation nor numba's type dispatch.

Two passes. ``_settle`` reads each component's mask eight values at a time (one unaligned
word: the count of open values is its bit count, the first open one its trailing zeros), sets
every component with at most one open value (that value, or 0 when none is open) and lists
the others; the generator then draws one uniform per listed component, and ``_pick`` sets each
to that share of its open values. Most components of a battle in play have a single open
value (hold, or the only legal speed), so a step draws a few hundred uniforms, not one per
component, and no mask value is read one at a time.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba.extending import intrinsic

from sfb_env.compiled import handle
from sfb_env.compiled.dispatch import kernel

# a listed component: where its value goes in the flat ``out``, its first mask value in the
# flat masks, its size and its count of open values
_OUT, _AT, _SIZE, _OPEN = range(4)


def sample_masked(masks: np.ndarray, nvec: np.ndarray, rng: np.random.Generator,
                  out: np.ndarray | None = None) -> np.ndarray:
    """A uniform open value per component of every (battle, agent): ``masks`` (B, A, m)
    C-contiguous flat masks of 0/1 bytes aligned with ``nvec`` (A, k); a component with no
    open value gets 0. ``out``: a (B, A, k) int64 buffer to write (else a new array)."""
    return MaskedSampler(masks, nvec).sample(rng, out)


class MaskedSampler:
    """``sample_masked`` over fixed ``masks`` and ``nvec`` arrays (read at each call)."""

    def __init__(self, masks: np.ndarray, nvec: np.ndarray) -> None:
        if (masks.ndim != 3 or masks.dtype.itemsize != 1 or masks.dtype.kind not in "biu"
                or not masks.flags.c_contiguous):
            raise ValueError(f"masks must be a C-contiguous (B, A, m) array of 0/1 bytes, got "
                             f"{masks.dtype} {masks.shape}")
        nvec = np.ascontiguousarray(nvec, dtype=np.int64)
        if nvec.ndim != 2 or nvec.shape[0] != masks.shape[1] or nvec.sum(axis=1).max(
                initial=0) > masks.shape[2] or (nvec < 0).any():
            raise ValueError(f"nvec {nvec.shape} does not fit masks {masks.shape}: one row of "
                             f"component sizes per agent, summing to at most {masks.shape[2]}")
        self.masks, self.nvec = masks, nvec
        self.shape = (masks.shape[0], masks.shape[1], nvec.shape[1])
        self._flat = masks.reshape(-1).view(np.int8)  # (the same memory)
        # fewer than 8 values in all: a copy padded to one word, refreshed at each call
        self._padded = np.zeros(8, np.int8) if masks.size < 8 else None
        self._listed = np.empty((int(np.prod(self.shape)), 4), np.int64)
        self._uniforms = np.empty(len(self._listed))
        self._settle = self._pick = None

    def sample(self, rng: np.random.Generator, out: np.ndarray | None = None) -> np.ndarray:
        """Random masked actions (B, A, k), into ``out`` when given."""
        if out is None:
            out = np.empty(self.shape, np.int64)
        _check_out(out, self.shape)
        flat = self._flat
        if self._padded is not None:
            self._padded[:flat.size] = flat
            flat = self._padded
        if self._settle is None:
            args = (flat, self.masks.shape[2], self.nvec, out, self._listed)
            _settle(*args)
            self._settle = handle.compiled_entry(_settle, args)
            args = (flat, self._listed, 0, self._uniforms, out)
            _pick(*args)
            self._pick = handle.compiled_entry(_pick, args)
        # the compiled functions themselves (numba's dispatch skipped)
        listed = self._settle(flat, self.masks.shape[2], self.nvec, out, self._listed)
        if listed:
            rng.random(out=self._uniforms[:listed])
            self._pick(flat, self._listed, listed, self._uniforms, out)
        return out


def _check_out(out: np.ndarray, shape: tuple) -> None:
    if out.shape != shape or out.dtype != np.int64 or not out.flags.c_contiguous:
        raise ValueError(f"sampled actions go into a C-contiguous int64 array of shape {shape}, "
                         f"got {out.dtype} {out.shape}")


@intrinsic
def _word(typingctx, flat, at):
    """Bytes ``at`` to ``at + 7`` of the 1-d byte array ``flat`` as one little-endian uint64
    (an unaligned load; the caller keeps ``at + 8`` within the array)."""
    def codegen(context, builder, sig, args):
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        ptr = builder.gep(builder.bitcast(data, ir.IntType(8).as_pointer()), [args[1]])
        return builder.load(builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=1)
    return nb.types.uint64(flat, at), codegen


@intrinsic
def _bits(typingctx, w):
    """The number of set bits of the uint64 ``w`` (an int64)."""
    return nb.types.int64(nb.types.uint64), lambda context, builder, sig, args: (
        builder.ctpop(args[0]))


@intrinsic
def _lowest_byte(typingctx, w):
    """The index of the lowest set byte of the nonzero uint64 ``w`` (an int64)."""
    return nb.types.int64(nb.types.uint64), lambda context, builder, sig, args: (
        builder.lshr(builder.cttz(args[0], ir.Constant(ir.IntType(1), 1)),
                     ir.Constant(ir.IntType(64), 3)))


@nb.njit(cache=True, inline="always")
def _chunk(flat, at, n, guarded):
    """Mask values ``at`` .. ``at + min(n, 8) - 1`` of ``flat`` as a word, byte ``i`` the
    value ``at + i`` (0/1), the bytes past the component zero. ``guarded``: the word may run
    past the array's end (``flat`` has at least 8 values), so it is read from the last eight
    values there and shifted down."""
    size = flat.size
    if guarded and at + 8 > size:
        w = _word(flat, size - 8) >> np.uint64(8 * (at + 8 - size))
    else:
        w = _word(flat, at)
    if n < 8:
        w &= (np.uint64(1) << np.uint64(8 * n)) - np.uint64(1)
    return w


@nb.njit(cache=True, inline="always")
def _settle_row(flat, at, sizes, flat_out, slot, listed, count, guarded):
    """``_settle`` for one agent's row of masks from ``at`` (component sizes ``sizes``, the
    values to ``flat_out`` from ``slot``); returns ``count`` with the row's listed added."""
    for c in range(sizes.size):
        n = sizes[c]
        open_ = 0
        first = 0
        off = 0
        while off < n:
            w = _chunk(flat, at + off, n - off, guarded)
            if w and open_ == 0:
                first = off + _lowest_byte(w)
            open_ += _bits(w)
            off += 8
        flat_out[slot + c] = first
        if open_ > 1:
            listed[count, _OUT] = slot + c
            listed[count, _AT] = at
            listed[count, _SIZE] = n
            listed[count, _OPEN] = open_
            count += 1
        at += n
    return count


@kernel()
def _settle(flat, width, nvec, out, listed):
    """Set every component with at most one open value and list the others in ``listed``
    (columns ``_OUT``, ``_AT``, ``_SIZE``, ``_OPEN``); returns how many were listed. ``flat``:
    the masks, ``width`` values an agent (at least 8 values in all)."""
    flat_out = out.reshape(-1)
    n_agents, k = nvec.shape
    rows = out.shape[0] * n_agents
    # a row's words end at most 7 values past it: only the last rows may need the guard
    unguarded = rows - (7 + width - 1) // width if width else rows
    count = 0
    for r in range(rows):
        a = r % n_agents
        if r < unguarded:
            count = _settle_row(flat, r * width, nvec[a], flat_out, r * k, listed, count, False)
        else:
            count = _settle_row(flat, r * width, nvec[a], flat_out, r * k, listed, count, True)
    return count


@kernel()
def _pick(flat, listed, count, u, out):
    """Each of the first ``count`` listed components: its ``int(u * open)``-th open value."""
    flat_out = out.reshape(-1)
    for i in range(count):
        at, n = listed[i, _AT], listed[i, _SIZE]
        pick = int(u[i] * listed[i, _OPEN])
        for off in range(0, n, 8):
            w = _chunk(flat, at + off, n - off, True)
            here = _bits(w)
            if pick < here:
                for _ in range(pick):
                    w &= w - np.uint64(1)
                flat_out[listed[i, _OUT]] = off + _lowest_byte(w)
                break
            pick -= here
