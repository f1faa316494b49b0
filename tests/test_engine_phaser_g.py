"""Phaser-G rules module (E2.15): four shots a turn, four in any quarter turn, cost, damage."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from sfb_env.engine import phaser_g
from sfb_env.engine.phaser_g import PhaserGRuleError
from sfb_env.tables import phaser_damage


def test_e2_151_four_shots_a_turn_same_or_different_impulses():
    gun = phaser_g.new_phaser_g(32)
    gun = phaser_g.fire(gun, 1, 1, 2)  # two targets in one impulse
    gun = phaser_g.fire(gun, 1, 10)
    gun = phaser_g.fire(gun, 1, 20)
    assert phaser_g.shots_this_turn(gun, 1) == 4
    ok, why = phaser_g.can_fire(gun, 1, 30)
    assert not ok and why.startswith("E2.151 4 of 4 shots")
    with pytest.raises(PhaserGRuleError, match=r"^E2\.151"):
        phaser_g.fire(gun, 1, 30)
    assert phaser_g.can_fire(gun, 2, 1)[0]


def test_e2_151_quarter_turn_window_spans_the_turn_break():
    gun = phaser_g.fire(phaser_g.new_phaser_g(32), 1, 32, 4)
    for impulse in range(1, 8):  # windows 26..1 through 32..7 hold the four shots
        ok, why = phaser_g.can_fire(gun, 2, impulse)
        assert not ok and why.startswith("E2.151 4 shots already in the last 8 impulses")
    assert phaser_g.can_fire(gun, 2, 8, 4)[0]


def test_e2_151_quarter_turn_window_on_the_8_impulse_chart():
    # a quarter turn is 2 impulses: impulse 8 and the next turn's impulse 1 share a window
    gun = phaser_g.fire(phaser_g.new_phaser_g(8), 1, 8, 3)
    assert phaser_g.shots_in_quarter_turn(gun, 2, 1) == 3
    assert phaser_g.can_fire(gun, 2, 1, 1)[0] and not phaser_g.can_fire(gun, 2, 1, 2)[0]
    assert phaser_g.can_fire(gun, 2, 2, 4)[0]
    gun = phaser_g.fire(phaser_g.fire(phaser_g.new_phaser_g(8), 1, 7, 2), 1, 8, 2)
    assert phaser_g.shots_in_quarter_turn(gun, 2, 1) == 2  # impulse 7 is outside 8..1


def test_e2_151_shot_count_and_time_arguments():
    gun = phaser_g.new_phaser_g(32)
    with pytest.raises(PhaserGRuleError, match=r"^E2\.151 shots=0"):
        phaser_g.fire(gun, 1, 1, 0)
    with pytest.raises(PhaserGRuleError, match=r"^E2\.151 turn=1 impulse=33"):
        phaser_g.fire(gun, 1, 33)
    gun = phaser_g.fire(gun, 2, 5)
    with pytest.raises(PhaserGRuleError, match=r"^E2\.151 time runs backwards"):
        phaser_g.fire(gun, 2, 4)


def test_j4_32_crippled_fighter_fires_one_shot_a_turn():
    gun = phaser_g.fire(phaser_g.new_phaser_g(32, crippled_fighter=True), 1, 3)
    ok, why = phaser_g.can_fire(gun, 1, 20)
    assert not ok and why.startswith("J4.32")
    assert phaser_g.can_fire(gun, 2, 20)[0]


def test_e2_152_quarter_energy_a_shot():
    assert phaser_g.energy_cost(1) == Fraction(1, 4)
    assert phaser_g.energy_cost(4) == 1


def test_e2_152_phaser_3_table():
    for rng in range(16):
        for die in range(1, 7):
            assert phaser_g.damage(rng, die) == phaser_damage("ph-3", rng, die)
    assert phaser_g.damage(0, 1) == 4 and phaser_g.damage(3, 2) == 2
    with pytest.raises(PhaserGRuleError, match=r"^E2\.152 rng=16"):
        phaser_g.damage(16, 1)
    with pytest.raises(PhaserGRuleError, match=r"^E2\.152 die"):
        phaser_g.damage(3)
    a = phaser_g.damage(2, generator=np.random.default_rng(11))
    assert a == phaser_g.damage(2, generator=np.random.default_rng(11))


def test_j4_47_phaser_g_at_a_fighter():
    assert phaser_g.damage(2, 4, fighter=True) == phaser_damage("ph-3", 2, 5)  # 2
    assert phaser_g.damage(1, 6, fighter=True) == phaser_damage("ph-3", 2, 6)  # 1
