"""Random masked actions for a batch: every sampled value is open in its mask, the reusable
sampler draws what the plain function draws, and a wrong output buffer is refused."""

from __future__ import annotations

import numpy as np
import pytest

from sfb_env.compiled.sampler import MaskedSampler, sample_masked

pytestmark = pytest.mark.compiled_late


def _masks(rng: np.random.Generator, nvec: np.ndarray, battles: int) -> np.ndarray:
    """Random flat masks (B, A, m) aligned with ``nvec``: value 0 always open, others at 30%;
    agent 1's last component all closed (a dead agent's mask is all 0)."""
    m = int(nvec.sum(axis=1).max())
    masks = (rng.random((battles, nvec.shape[0], m)) < 0.3).astype(np.int8)
    for a, sizes in enumerate(nvec):
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        masks[:, a, starts] = 1
    masks[:, 1, m - nvec[1, -1]:] = 0
    return masks


def test_every_sampled_value_is_open_and_the_sampler_matches_the_plain_function():
    rng = np.random.default_rng(0)
    nvec = np.array([[9, 9, 4, 9], [5, 9, 9, 4]])
    masks = _masks(rng, nvec, 16)
    sampler = MaskedSampler(masks, nvec)
    out = np.empty((16, 2, 4), np.int64)
    for step in range(20):
        got = sampler.sample(np.random.default_rng(step), out)
        want = sample_masked(masks, nvec, np.random.default_rng(step))
        assert got is out and np.array_equal(got, want)
        for a in range(2):
            starts = np.concatenate([[0], np.cumsum(nvec[a])[:-1]])
            for c, start in enumerate(starts):
                closed = ~masks[:, a, start:start + nvec[a, c]].any(axis=1)
                value = got[:, a, c]
                is_open = masks[np.arange(16), a, start + value] == 1
                assert np.all(is_open | closed) and np.all(value[closed] == 0)
    assert len(np.unique(out[:, 0, 0])) > 1  # (it does draw: not always the first open value)


def test_a_wrong_output_buffer_is_refused_naming_the_shape():
    nvec = np.array([[3, 4]])
    masks = np.ones((2, 1, 7), np.int8)
    with pytest.raises(ValueError, match=r"int64 array of shape \(2, 1, 2\)"):
        MaskedSampler(masks, nvec).sample(np.random.default_rng(0), np.zeros((2, 1, 2)))
    with pytest.raises(ValueError, match="shape"):
        sample_masked(masks, nvec, np.random.default_rng(0), np.zeros((3, 1, 2), np.int64))
