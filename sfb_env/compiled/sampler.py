"""Random masked actions for a batch: per (battle, agent, component) a uniform open value.

Used by ``BattleBatch.sample_actions`` (the benchmarks' random play, the vector env's random
opponents). ``sample_masked`` is the plain function; ``MaskedSampler`` keeps its draw buffer
and the compiled entry point for one batch's arrays, so a loop that samples every step pays
neither an allocation nor numba's type dispatch.
"""

from __future__ import annotations

import numpy as np

from sfb_env.compiled import handle
from sfb_env.compiled.dispatch import kernel


def sample_masked(masks: np.ndarray, nvec: np.ndarray, rng: np.random.Generator,
                  out: np.ndarray | None = None) -> np.ndarray:
    """A uniform open value per component of every (battle, agent): ``masks`` (B, A, m) int8
    flat masks aligned with ``nvec`` (A, k); vectorised with one uniform draw per component.
    ``out``: a (B, A, k) int64 buffer to write (else a new array)."""
    return MaskedSampler(masks, nvec).sample(rng, out)


class MaskedSampler:
    """``sample_masked`` over fixed ``masks`` and ``nvec`` arrays (read at each call)."""

    def __init__(self, masks: np.ndarray, nvec: np.ndarray) -> None:
        self.masks, self.nvec = masks, nvec
        self.shape = (masks.shape[0], masks.shape[1], nvec.shape[1])
        self._uniforms = np.empty(self.shape)
        self._entry = None

    def sample(self, rng: np.random.Generator, out: np.ndarray | None = None) -> np.ndarray:
        """Random masked actions (B, A, k), into ``out`` when given."""
        if out is None:
            out = np.empty(self.shape, np.int64)
        _check_out(out, self.shape)
        u = rng.random(out=self._uniforms)
        if self._entry is None:
            args = (self.masks, self.nvec, u, out)
            _sample(*args)
            self._entry = handle.compiled_entry(_sample, args)
        else:  # the compiled function itself (numba's dispatch skipped)
            self._entry(self.masks, self.nvec, u, out)
        return out


def _check_out(out: np.ndarray, shape: tuple) -> None:
    if out.shape != shape or out.dtype != np.int64 or not out.flags.c_contiguous:
        raise ValueError(f"sampled actions go into a C-contiguous int64 array of shape {shape}, "
                         f"got {out.dtype} {out.shape}")


@kernel()
def _sample(masks, nvec, u, out):
    for b in range(masks.shape[0]):
        for a in range(masks.shape[1]):
            at = 0
            for c in range(nvec.shape[1]):
                n = nvec[a, c]
                open_ = 0
                for v in range(n):
                    open_ += masks[b, a, at + v]
                pick = int(u[b, a, c] * open_)
                value = 0
                for v in range(n):
                    if masks[b, a, at + v]:
                        if pick == 0:
                            value = v
                            break
                        pick -= 1
                out[b, a, c] = value
                at += n
