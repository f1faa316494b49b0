"""Random masked actions for a batch: every sampled value is open in its mask, each open value
as likely as the others (components of one to three mask words, at the array's end, in masks
of fewer than eight values), the reusable sampler draws what the plain function draws, and a
wrong output buffer or mask array is refused."""

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


def test_a_call_takes_one_draw_of_the_callers_generator_and_repeats_with_its_seed():
    nvec = np.array([[9, 9, 4, 9], [5, 9, 9, 4]])
    masks = _masks(np.random.default_rng(1), nvec, 8)
    sampler = MaskedSampler(masks, nvec)
    rng, twin = np.random.default_rng(5), np.random.default_rng(5)
    first = sampler.sample(rng).copy()
    twin.bit_generator.random_raw()
    assert rng.bit_generator.state == twin.bit_generator.state
    second = sampler.sample(rng)
    assert not np.array_equal(first, second)  # the next call draws anew
    again = MaskedSampler(masks, nvec)
    replay = np.random.default_rng(5)
    assert np.array_equal(again.sample(replay), first)
    assert np.array_equal(again.sample(replay), second)


def test_a_wrong_output_buffer_is_refused_naming_the_shape():
    nvec = np.array([[3, 4]])
    masks = np.ones((2, 1, 7), np.int8)
    with pytest.raises(ValueError, match=r"int64 array of shape \(2, 1, 2\)"):
        MaskedSampler(masks, nvec).sample(np.random.default_rng(0), np.zeros((2, 1, 2)))
    with pytest.raises(ValueError, match="shape"):
        sample_masked(masks, nvec, np.random.default_rng(0), np.zeros((3, 1, 2), np.int64))


def _frequencies(masks: np.ndarray, nvec: np.ndarray, draws: int, seed: int = 0) -> np.ndarray:
    """How often each value of each (agent, component) was drawn, over every battle and
    ``draws`` samples: (A, k, max size)."""
    sampler = MaskedSampler(masks, nvec)
    rng = np.random.default_rng(seed)
    counts = np.zeros((nvec.shape[0], nvec.shape[1], int(nvec.max())), np.int64)
    for _ in range(draws):
        got = sampler.sample(rng)
        for a in range(nvec.shape[0]):
            for c in range(nvec.shape[1]):
                counts[a, c] += np.bincount(got[:, a, c], minlength=counts.shape[2])
    return counts


def test_each_open_value_is_drawn_uniformly_across_words_and_at_the_arrays_end():
    # agent 0: 17 values open at 0, 7, 8 and 16 (three words), a single open value, none
    # open, an empty component; agent 1 (the array's last values): 3 of 5 open, then 2 of 9
    nvec = np.array([[17, 4, 3, 0], [5, 9, 0, 0]])
    masks = np.zeros((50, 2, 24), np.int8)
    masks[:, 0, [0, 7, 8, 16]] = 1
    masks[:, 0, 17 + 2] = 1
    masks[:, 1, [0, 2, 4]] = 1
    masks[:, 1, 5 + np.array([3, 8])] = 1
    counts = _frequencies(masks, nvec, draws=200)  # 10,000 samples a component
    def shares(a, c, values):
        got = counts[a, c]
        assert got[values].sum() == got.sum() == 10_000  # only open values
        share = got[values] / 10_000
        # each within 5 standard errors of 1/len(values)
        p = 1 / len(values)
        assert np.all(np.abs(share - p) <= 5 * np.sqrt(p * (1 - p) / 10_000)), share
    shares(0, 0, [0, 7, 8, 16])
    shares(0, 1, [2])
    shares(0, 2, [0])  # none open: 0
    shares(0, 3, [0])  # an empty component: 0
    shares(1, 0, [0, 2, 4])
    shares(1, 1, [3, 8])


def test_masks_of_fewer_than_eight_values_sample_correctly():
    nvec = np.array([[3, 4]])
    masks = np.array([[[0, 1, 1, 0, 0, 0, 1]]], np.int8)
    counts = _frequencies(masks, nvec, draws=4000)
    assert counts[0, 1].tolist() == [0, 0, 0, 4000]
    assert counts[0, 0, 1] + counts[0, 0, 2] == 4000 and 1800 < counts[0, 0, 1] < 2200


def test_a_mask_array_the_sampler_cannot_read_is_refused_naming_it():
    nvec = np.array([[3, 4]])
    with pytest.raises(ValueError, match="C-contiguous"):
        MaskedSampler(np.ones((2, 1, 14), np.int8)[:, :, ::2], nvec)
    with pytest.raises(ValueError, match="0/1 bytes, got float64"):
        MaskedSampler(np.ones((2, 1, 7)), nvec)
    with pytest.raises(ValueError, match="does not fit masks"):
        MaskedSampler(np.ones((2, 1, 6), np.int8), nvec)
    bools = np.ones((2, 1, 7), bool)
    bools[:, 0, :3] = False
    bools[:, 0, 1] = True
    assert MaskedSampler(bools, nvec).sample(np.random.default_rng(0))[:, 0, 0].tolist() == [1, 1]
