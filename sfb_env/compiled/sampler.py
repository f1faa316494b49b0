"""Random masked actions for a batch: per (battle, agent, component) a uniform open value.

Used by ``BattleBatch.sample_actions`` (the benchmarks' random play, the vector env's random
opponents). ``sample_masked`` is the plain function; ``MaskedSampler`` keeps the compiled
entry point for one batch's arrays, so a loop that samples every step pays neither an
allocation nor numba's type dispatch.

One compiled pass, ``_sample``, reads each component's mask eight values at a time (one
unaligned word: the count of open values is its bit count). A component with at most one
open value takes it (0 when none is open), with no draw; one with more takes a uniform pick
among them. The pick-th open value of a word is found without a branch (``_nth_open``: the
word times 0x0101..01 holds each value's running count of open ones, and a SWAR comparison
counts those at most the pick), where a loop clearing the lowest bit pick times cost a
mispredicted branch a draw (grad-lyran-vs-hydran, B=256: 43 -> 28 us a call). Most
components of a battle in play have a single open value (hold, the only legal speed), so a
step makes a few hundred draws, not one per component. The draws: each call takes one 64-bit
value from the caller's generator (``bit_generator.random_raw``) and expands it with
SplitMix64 (Steele, Lea and Flood 2014, the generator of Java's ``SplittableRandom``), one
64-bit output a draw, its top 53 bits the uniform: a call costs one draw of the caller's
generator, however many components it picks.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba.extending import intrinsic

from sfb_env.compiled import handle
from sfb_env.compiled.dispatch import kernel


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
        self._entry = None

    def sample(self, rng: np.random.Generator, out: np.ndarray | None = None) -> np.ndarray:
        """Random masked actions (B, A, k), into ``out`` when given."""
        if out is None:
            out = np.empty(self.shape, np.int64)
        _check_out(out, self.shape)
        flat = self._flat
        if self._padded is not None:
            self._padded[:flat.size] = flat
            flat = self._padded
        seed = rng.bit_generator.random_raw()  # (a Python int in [0, 2**64))
        if self._entry is None:  # typed by a uint64: a plain int below 2**63 would type int64,
            # and the entry point then refuse the seeds above; the entry unboxes any as uint64
            args = (flat, self.masks.shape[2], self.nvec, np.uint64(seed), out)
            _sample(*args)
            self._entry = handle.compiled_entry(_sample, args)
        else:  # the compiled function itself (numba's dispatch skipped)
            self._entry(flat, self.masks.shape[2], self.nvec, seed, out)
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


_UNIT = 1.0 / (1 << 53)  # a 53-bit integer times this: a uniform in [0, 1)


@nb.njit(cache=True, inline="always")
def _next(state):
    """SplitMix64: the next state (``state`` advanced by the golden gamma) and its output."""
    state += np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


_ONES = np.uint64(0x0101010101010101)
_HIGHS = np.uint64(0x8080808080808080)


@nb.njit(cache=True, inline="always")
def _nth_open(w, pick):
    """The byte index of the ``pick``-th (from 0) set byte of the 0/1-byte word ``w`` (its
    open values), without a branch: the bytes' running counts (``w`` times ``_ONES``), and
    the number of them at most ``pick`` (SWAR: ``pick + 128 - count`` keeps its top bit)."""
    counts = w * _ONES
    return _bits(((np.uint64(0x80 + pick) * _ONES) - counts) & _HIGHS)


@nb.njit(cache=True, inline="always")
def _pick(state, open_):
    """A uniform pick in [0, ``open_``) and the state after its draw, where more than one
    value is open; else pick 0 and the state unchanged (no draw)."""
    if open_ > 1:
        state, z = _next(state)
        return state, int((z >> np.uint64(11)) * _UNIT * open_)
    return state, 0


@nb.njit(cache=True, inline="always")
def _sample_row(flat, at, sizes, flat_out, slot, state, guarded):
    """``_sample`` for one agent's row of masks from ``at`` (component sizes ``sizes``, the
    values to ``flat_out`` from ``slot``); returns the generator's state after the row."""
    for c in range(sizes.size):
        n = sizes[c]
        w = _chunk(flat, at, n, guarded)
        open_ = _bits(w)
        if n <= 8:
            state, pick = _pick(state, open_)
            flat_out[slot + c] = _nth_open(w, pick) if open_ else 0
        else:
            off = 8
            while off < n:
                open_ += _bits(_chunk(flat, at + off, n - off, guarded))
                off += 8
            state, pick = _pick(state, open_)
            value = 0
            if open_:
                off = 0
                while True:  # the word holding the pick-th open value
                    here = _bits(w)
                    if pick < here:
                        break
                    pick -= here
                    off += 8
                    w = _chunk(flat, at + off, n - off, guarded)
                value = off + _nth_open(w, pick)
            flat_out[slot + c] = value
        at += n
    return state


@kernel()
def _sample(flat, width, nvec, seed, out):
    """A uniform open value of every component into ``out`` (B, A, k); ``flat``: the masks,
    ``width`` values an agent (at least 8 values in all); ``seed``: the SplitMix64 state."""
    flat_out = out.reshape(-1)
    n_agents, k = nvec.shape
    rows = out.shape[0] * n_agents
    # a row's words end at most 7 values past it: only the last rows may need the guard
    unguarded = rows - (7 + width - 1) // width if width else rows
    state = seed
    for r in range(rows):
        a = r % n_agents
        if r < unguarded:
            state = _sample_row(flat, r * width, nvec[a], flat_out, r * k, state, False)
        else:
            state = _sample_row(flat, r * width, nvec[a], flat_out, r * k, state, True)
