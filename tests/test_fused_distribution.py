"""The fused masked MultiDiscrete distribution (training.fused_distribution) agrees with
sb3-contrib's MaskableMultiCategoricalDistribution: log_prob, entropy, mode and their
gradients; its samples never take a masked value and follow the masked probabilities."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require

th = require("torch")
require("sb3_contrib")

from sb3_contrib.common.maskable.distributions import (  # noqa: E402
    MaskableMultiCategoricalDistribution,
)

from training.fused_distribution import FusedMaskableMultiCategorical, runs_of  # noqa: E402

DUEL_NVEC = [9] * 12 + [4, 32]  # a duel ship's padded action space
NVECS = [DUEL_NVEC, [3, 5, 5, 2, 7], [6], [2, 2, 9, 9, 9, 4]]


def random_case(nvec: list[int], batch: int, seed: int, keep: float = 0.6):
    """Logits and masks with at least one allowed value per component."""
    rng = np.random.default_rng(seed)
    logits = th.as_tensor(rng.normal(0.0, 3.0, (batch, sum(nvec))), dtype=th.float32)
    masks = rng.random((batch, sum(nvec))) < keep
    offsets = np.concatenate([[0], np.cumsum(nvec)[:-1]])
    for start, n in zip(offsets, nvec, strict=True):
        masks[np.arange(batch), start + rng.integers(0, n, batch)] = True
    return logits, masks


def both(nvec, logits, masks):
    stock = MaskableMultiCategoricalDistribution(nvec).proba_distribution(logits)
    fused = FusedMaskableMultiCategorical(nvec).proba_distribution(logits)
    stock.apply_masking(masks)
    fused.apply_masking(masks)
    return stock, fused


def test_components_of_one_size_in_a_row_form_one_run():
    runs = runs_of(DUEL_NVEC)
    assert [(r.start, r.first, r.count, r.n) for r in runs] == [
        (0, 0, 12, 9), (108, 12, 1, 4), (112, 13, 1, 32)]


@pytest.mark.parametrize("nvec", NVECS)
@pytest.mark.parametrize("masked", [True, False])
def test_log_prob_entropy_and_mode_equal_sb3_contribs(nvec, masked):
    logits, masks = random_case(nvec, 64, seed=len(nvec))
    stock, fused = both(nvec, logits, masks if masked else None)
    actions = stock.sample()
    assert th.allclose(fused.log_prob(actions), stock.log_prob(actions), atol=1e-4)
    assert th.allclose(fused.entropy(), stock.entropy(), atol=1e-4)
    assert th.equal(fused.mode(), stock.mode())


def test_log_prob_of_a_masked_value_is_hugely_negative_as_in_sb3_contrib():
    logits, masks = random_case(DUEL_NVEC, 8, seed=1, keep=0.3)
    stock, fused = both(DUEL_NVEC, logits, masks)
    actions = stock.mode()
    first = masks[:, :9].argmin(axis=1)  # a masked value of component 0 in each row
    actions[:, 0] = th.as_tensor(first)
    rows = ~masks[np.arange(8), first]
    assert rows.any()
    assert (fused.log_prob(actions)[rows] < -1e7).all()
    assert th.allclose(fused.log_prob(actions), stock.log_prob(actions), rtol=1e-6)


@pytest.mark.parametrize("nvec", NVECS)
def test_gradients_equal_sb3_contribs(nvec):
    logits, masks = random_case(nvec, 32, seed=7)
    actions = MaskableMultiCategoricalDistribution(nvec).proba_distribution(logits)
    actions.apply_masking(masks)
    actions = actions.sample()
    grads = []
    for cls in (MaskableMultiCategoricalDistribution, FusedMaskableMultiCategorical):
        x = logits.clone().requires_grad_(True)
        dist = cls(nvec).proba_distribution(x)
        dist.apply_masking(masks)
        (dist.log_prob(actions).sum() + 0.5 * dist.entropy().sum()).backward()
        grads.append(x.grad)
    assert th.allclose(grads[0], grads[1], atol=1e-5)


def test_masks_of_none_remove_the_masking():
    logits, masks = random_case(DUEL_NVEC, 16, seed=3)
    fused = FusedMaskableMultiCategorical(DUEL_NVEC).proba_distribution(logits)
    fused.apply_masking(masks)
    fused.apply_masking(None)
    plain = MaskableMultiCategoricalDistribution(DUEL_NVEC).proba_distribution(logits)
    assert th.allclose(fused.entropy(), plain.entropy(), atol=1e-4)


def test_samples_never_take_a_masked_value_and_follow_the_probabilities():
    nvec = [9, 4, 32]
    logits, masks = random_case(nvec, 1, seed=11, keep=0.5)
    masks[0, 9:13] = [False, True, False, True]  # component 1: values 1 and 3 only
    n = 40_000
    th.manual_seed(0)
    fused = FusedMaskableMultiCategorical(nvec).proba_distribution(logits.expand(n, -1))
    fused.apply_masking(np.repeat(masks, n, axis=0))
    samples = fused.sample().numpy()
    offsets = np.concatenate([[0], np.cumsum(nvec)[:-1]])
    stock = MaskableMultiCategoricalDistribution(nvec).proba_distribution(logits)
    stock.apply_masking(masks)
    for j, (start, size) in enumerate(zip(offsets, nvec, strict=True)):
        assert masks[0, start + samples[:, j]].all()
        freq = np.bincount(samples[:, j], minlength=size) / n
        probs = stock.distributions[j].probs[0].numpy()
        assert np.abs(freq - probs).max() < 0.01


def test_a_component_with_every_value_masked_is_uniform_and_adds_no_entropy():
    nvec = [5, 3]
    logits, masks = random_case(nvec, 1, seed=5)
    masks[0, :5] = False
    n = 20_000
    th.manual_seed(1)
    fused = FusedMaskableMultiCategorical(nvec).proba_distribution(logits.expand(n, -1))
    fused.apply_masking(np.repeat(masks, n, axis=0))
    samples = fused.sample().numpy()
    freq = np.bincount(samples[:, 0], minlength=5) / n
    assert samples[:, 0].max() < 5 and np.abs(freq - 0.2).max() < 0.015
    stock = MaskableMultiCategoricalDistribution(nvec).proba_distribution(logits)
    stock.apply_masking(masks)
    assert th.allclose(fused.entropy()[:1], stock.entropy(), atol=1e-5)
    assert th.allclose(fused.entropy()[:1], stock.distributions[1].entropy(), atol=1e-5)


def test_deterministic_actions_are_the_mode_and_samples_have_the_action_shape():
    logits, masks = random_case(DUEL_NVEC, 5, seed=2)
    fused = FusedMaskableMultiCategorical(DUEL_NVEC).proba_distribution(logits)
    fused.apply_masking(masks)
    assert th.equal(fused.get_actions(deterministic=True), fused.mode())
    sample = fused.get_actions()
    assert sample.shape == (5, len(DUEL_NVEC)) and sample.dtype == th.int64
