"""Fusion beam rules module (E7): arming, cooling, discharge, reserve power, destruction, damage.

The E7.22 cooling example is reproduced under its rule.
"""

from __future__ import annotations

import numpy as np
import pytest

from sfb_env.engine import fusion
from sfb_env.engine.fusion import FusionRuleError, FusionStage
from sfb_env.tables import fusion_damage


def _armed(turn: int = 1) -> fusion.FusionBeam:
    return fusion.arm(fusion.FusionBeam(), turn)


def test_e7_21_two_energy_within_one_turn_arms_it():
    beam = fusion.arm(fusion.FusionBeam(), 1, 1)
    assert fusion.stage(beam, 1) == FusionStage.ARMING
    assert fusion.can_fire(beam, 1) == (False, "E7.21 the beam needs 2 energy paid this turn")
    beam = fusion.arm(beam, 1, 1)
    assert fusion.stage(beam, 1) == FusionStage.ARMED and fusion.can_fire(beam, 1)[0]
    with pytest.raises(FusionRuleError, match=r"^E7\.21"):
        fusion.arm(beam, 1, 1)


@pytest.mark.parametrize("energy", [0, 3, True, 1.5])
def test_e7_21_energy_argument(energy):
    with pytest.raises(FusionRuleError, match=r"^E7\.21 energy="):
        fusion.arm(fusion.FusionBeam(), 1, energy)


def test_e7_21_partial_energy_does_not_carry_into_the_next_turn():
    beam = fusion.arm(fusion.FusionBeam(), 1, 1)
    beam = fusion.arm(beam, 2, 1)
    assert fusion.stage(beam, 2) == FusionStage.ARMING


def test_e7_22_example_fired_on_turn_1_cannot_arm_or_fire_on_turn_2():
    # the beam records turns only: impulse 1 or 32 of turn 1 is the same
    beam = fusion.fire(_armed(1), 1)
    assert fusion.stage(beam, 1) == FusionStage.FIRED
    assert fusion.stage(beam, 2) == FusionStage.COOLING
    assert fusion.can_arm(beam, 2) == (False, "E7.22 the beam fired last turn and is cooling")
    assert fusion.can_fire(beam, 2) == (False, "E7.22 the beam fired last turn and is cooling")
    with pytest.raises(FusionRuleError, match=r"^E7\.22"):
        fusion.arm(beam, 2)
    assert fusion.stage(beam, 3) == FusionStage.EMPTY
    assert fusion.can_fire(fusion.arm(beam, 3), 3)[0]


def test_e7_22_fired_beam_cannot_rearm_the_same_turn():
    beam = fusion.fire(_armed(1), 1)
    with pytest.raises(FusionRuleError, match=r"^E1\.5"):
        fusion.arm(beam, 1)
    with pytest.raises(FusionRuleError, match=r"^E1\.5"):
        fusion.fire(beam, 1)


def test_e7_22_discharge_needs_no_cooling():
    beam = fusion.discharge(_armed(1), 1)
    assert fusion.stage(beam, 1) == FusionStage.EMPTY
    assert fusion.can_arm(beam, 2)[0]
    with pytest.raises(FusionRuleError, match=r"^E7\.22 turn=1"):
        fusion.discharge(beam, 1)


def test_e7_23_no_holding_over_the_turn_break():
    beam = _armed(1)
    assert fusion.stage(beam, 2) == FusionStage.EMPTY
    with pytest.raises(FusionRuleError, match=r"^E7\.21"):
        fusion.fire(beam, 2)
    assert fusion.can_arm(beam, 2)[0]  # released unfired: no cooling


def test_e7_24_reserve_power_arms_it():
    beam = fusion.arm(fusion.FusionBeam(), 4, reserve=True)
    assert fusion.can_fire(beam, 4)[0]


def test_e7_12_destroyed_on_torp_hits():
    assert fusion.DAMAGE_CATEGORY == "torp"
    beam = fusion.destroy(_armed(1))
    assert fusion.stage(beam, 1) == FusionStage.DESTROYED
    with pytest.raises(FusionRuleError, match=r"^E7\.12"):
        fusion.fire(beam, 1)
    with pytest.raises(FusionRuleError, match=r"^E7\.12"):
        fusion.arm(beam, 2)


def test_e7_32_damage_on_the_fusion_table():
    assert fusion.damage(0, 1) == 13 and fusion.damage(10, 1) == 4 and fusion.damage(24, 6) == 0
    drawn = fusion.damage(2, generator=np.random.default_rng(3))
    assert drawn == fusion_damage(2, int(np.random.default_rng(3).integers(1, 7)))
    with pytest.raises(FusionRuleError, match=r"^E7\.32 die"):
        fusion.damage(2)
    with pytest.raises(FusionRuleError, match=r"^E7\.32 rng=25"):
        fusion.damage(25, 1)


def test_j4_47_fusion_at_a_fighter_shifts_the_die():
    assert fusion.damage(2, 3, fighter=True) == fusion_damage(2, 4)
    assert fusion.damage(2, 6, fighter=True) == fusion_damage(3, 6)  # six of range 3-10: 0


def test_turn_argument_names_the_rule():
    with pytest.raises(FusionRuleError, match=r"^E7\.21 turn=0"):
        fusion.stage(fusion.FusionBeam(), 0)
