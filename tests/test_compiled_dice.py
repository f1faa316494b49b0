"""The compiled dice are numpy's: PCG64 and ``Generator.integers`` drawn bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from sfb_env.compiled import dice

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)


@pytest.mark.parametrize("seed", [0, 7, 123456789, 2**31 - 2])
def test_roll_draws_what_generator_integers_draws(seed):
    ref = np.random.default_rng(seed)
    row = dice.dice_row(ref)[None, :].copy()
    for low, high in [(1, 7), (0, 5), (1, 7), (0, 100), (2, 3), (0, 2**32), (5, 6)] * 40:
        assert dice.roll(row, 0, low, high) == int(ref.integers(low, high))
    assert dice.generator_of(row[0]).bit_generator.state == ref.bit_generator.state


def test_sized_draws_are_sequential_scalar_draws():
    """``integers(1, 7, size=(n, 2))`` (damage allocation) = 2n dice in row-major order."""
    ref = np.random.default_rng(3)
    row = dice.dice_row(ref)[None, :].copy()
    want = ref.integers(1, 7, size=(6, 2)).ravel().tolist()
    assert [dice.die(row, 0) for _ in range(12)] == want


def test_each_battle_has_its_own_generator():
    rows = np.stack([dice.seeded_row(1), dice.seeded_row(2)])
    first = [dice.die(rows, 0) for _ in range(20)]
    assert first == np.random.default_rng(1).integers(1, 7, size=20).tolist()
    assert [dice.die(rows, 1) for _ in range(20)] == (
        np.random.default_rng(2).integers(1, 7, size=20).tolist())


def test_only_pcg64_generators_convert():
    with pytest.raises(ValueError, match="PCG64"):
        dice.dice_row(np.random.Generator(np.random.MT19937(0)))


def test_seed_into_seeds_as_default_rng_does():
    """The autoreset's compiled seeding = ``default_rng(seed)``'s state (SeedSequence hash of
    the seed's 32-bit words, PCG64 set-seed), for one- to three-word seeds."""
    rng = np.random.default_rng(5)
    seeds = [0, 1, 7, 2**31 - 2, 2**32 - 1, 2**32, 2**40 + 5, 2**63 - 1]
    seeds += rng.integers(0, 2**31 - 1, 200).tolist() + rng.integers(0, 2**63 - 1, 50).tolist()
    rows = np.zeros((2, dice.DICE_WORDS), np.uint64)
    for seed in seeds:
        dice.seed_into(rows, 1, int(seed))
        np.testing.assert_array_equal(rows[1], dice.seeded_row(int(seed)), err_msg=str(seed))
    assert not rows[0].any()  # only row 1 written
