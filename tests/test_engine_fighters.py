"""Fire at fighters (J4.47): the +1 die shift; the rule's two worked examples."""

from __future__ import annotations

import numpy as np
import pytest

from sfb_env.engine import fighters
from sfb_env.engine.fighters import FighterRuleError
from sfb_env.tables import disruptor_damage, fusion_chart, phaser_chart, phaser_damage


def test_j4_47_example_phaser_1_range_3_die_6_scores_2_not_3():
    assert phaser_damage("ph-1", 3, 6) == 3
    assert fighters.phaser_damage_vs_fighter("ph-1", 3, 6) == 2  # six of range 4


def test_j4_47_example_disruptor_range_3_die_4_becomes_a_miss():
    assert disruptor_damage(3, 4) == 4
    assert disruptor_damage(3, fighters.fighter_die(4)) == 0


def test_j4_47_die_1_to_5_reads_the_next_row():
    for kind in ("ph-1", "ph-2", "ph-3", "ph-g"):
        for rng in range(6):
            for die in range(1, 6):
                assert fighters.phaser_damage_vs_fighter(kind, rng, die) == phaser_damage(
                    kind, rng, die + 1)


def test_j4_47_six_reads_the_next_bracket():
    assert fighters.next_bracket(phaser_chart("ph-1"), 6) == 9  # 6-8 -> 9-15
    assert fighters.next_bracket(fusion_chart(), 4) == 11  # 3-10 -> 11-15
    assert fighters.next_bracket(phaser_chart("ph-3"), 12) is None
    assert fighters.phaser_damage_vs_fighter("ph-2", 4, 6) == phaser_damage("ph-2", 9, 6)
    assert fighters.die_chart_vs_fighter(phaser_chart("ph-3"), 12, 6) == 0


def test_j4_47_plasma_is_not_shifted():
    assert fighters.fighter_die(3, plasma=True) == 3
    assert fighters.fighter_die(3) == 4


def test_j4_47_fighters_targeted_at_five_hexes_at_most():
    assert fighters.can_target_fighter(5) and not fighters.can_target_fighter(6)


def test_j4_47_drone_hitting_a_fighter_scores_half_on_a_six():
    assert fighters.drone_damage_vs_fighter(12, 6) == 6
    assert fighters.drone_damage_vs_fighter(12, 5) == 12


@pytest.mark.parametrize(("call", "field"), [
    (lambda: fighters.fighter_die(7), "die=7"),
    (lambda: fighters.fighter_die(np.int64(0)), r"die=np\.int64\(0\)"),
    (lambda: fighters.phaser_damage_vs_fighter("ph-3", 16, 1), "rng=16"),
    (lambda: fighters.can_target_fighter(-1), "rng=-1"),
    (lambda: fighters.drone_damage_vs_fighter(-2, 6), "warhead=-2"),
])
def test_j4_47_bad_arguments_name_field_and_rule(call, field):
    with pytest.raises(FighterRuleError, match=rf"^J4\.47 {field}"):
        call()
