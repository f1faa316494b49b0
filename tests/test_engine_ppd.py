"""PPD rules module (E11): arming, pulse schedule, wave-lock, splash, reinforcement, lock events.

Every worked example of the E11 text is reproduced here under the rule that gives it.
"""

from __future__ import annotations

import numpy as np
import pytest

from sfb_env.engine import ppd
from sfb_env.engine.ppd import LockEvent, PpdRuleError, PpdStage, TargetKind

EQUAL = (20, 20, 20, 20, 20, 20)


def _armed(first: int = 4, second: int = 4, turn: int = 1) -> ppd.PpdCharge:
    """A charge armed on ``turn`` and ``turn + 1``."""
    charge = ppd.arm_first_turn(ppd.new_charge(), turn, first)
    return ppd.arm_second_turn(charge, turn + 1, second)


def _train(true_range: int = 12, turn: int = 2, impulse: int = 5, ipt: int = 32,
           target: TargetKind = TargetKind.SHIP, charge: ppd.PpdCharge | None = None
           ) -> ppd.PulseTrain:
    _, train = ppd.fire(charge or _armed(turn=turn - 1), turn, impulse, true_range, ipt,
                        target=target)
    return train


def _pulse(train, turn, impulse, rng, roll=None, **kw):
    return ppd.resolve_pulse(train, turn, impulse, rng, rng, roll, **kw)


# ---------------------------------------------------------------- arming (E11.2)


def test_e11_21_four_and_four_over_two_consecutive_turns_fires_on_the_second():
    charge = ppd.arm_first_turn(ppd.new_charge(), 1, 4)
    assert charge.stage == PpdStage.ARMING and not ppd.can_fire(charge, 1)
    charge = ppd.arm_second_turn(charge, 2, 4)
    assert charge.stage == PpdStage.ARMED and charge.pulses == 4
    assert ppd.can_fire(charge, 2)


def test_e11_21_second_turn_must_be_the_next_turn():
    charge = ppd.arm_first_turn(ppd.new_charge(), 1, 4)
    with pytest.raises(PpdRuleError, match=r"^E11\.21 turn=3"):
        ppd.arm_second_turn(charge, 3, 4)
    with pytest.raises(PpdRuleError, match=r"^E11\.21 turn=1"):
        ppd.arm_second_turn(charge, 1, 4)
    assert ppd.lapse(charge, 2) == ppd.new_charge()  # unpaid second turn: energy lost


def test_e11_22_holding_costs_two_a_turn_and_adds_no_strength():
    charge = _armed(3, 2)  # 5 energy -> 2 pulses
    assert not ppd.can_fire(charge, 3)  # not held yet
    held = ppd.hold(charge, 3)
    assert ppd.can_fire(held, 3) and held.pulses == 2 and held.energy == 5
    assert ppd.lapse(charge, 3) == ppd.new_charge()  # holding cost unpaid: ejected
    with pytest.raises(PpdRuleError, match=r"^E11\.22 turn=4"):
        ppd.hold(charge, 4)
    with pytest.raises(PpdRuleError, match=r"^E11\.22"):
        ppd.hold(ppd.arm_first_turn(ppd.new_charge(), 1, 4), 2)


def test_e11_23_one_charge_at_a_time():
    arming = ppd.arm_first_turn(ppd.new_charge(), 1, 4)
    with pytest.raises(PpdRuleError, match=r"^E11\.23"):
        ppd.arm_first_turn(arming, 2, 4)
    with pytest.raises(PpdRuleError, match=r"^E11\.23"):
        ppd.arm_first_turn(_armed(), 3, 4)  # still holdable: must fire or lapse first
    assert ppd.can_arm_first_turn(_armed(), 4)[0]  # long lapsed


def test_e11_23_example_fired_on_31_pulses_31_32_1_2_and_rearms_on_turn_3():
    charge, train = ppd.fire(_armed(turn=1), 2, 31, 10, 32)
    assert train.schedule == ((2, 31), (2, 32), (3, 1), (3, 2))
    assert ppd.pulse_schedule(2, 31, 4, 32) == train.schedule
    # turn 3 Energy Allocation, before pulses 3 and 4 resolve: new first-turn energy is allowed
    charge = ppd.arm_first_turn(charge, 3, 4)
    train, first = _pulse(train, 2, 31, 10, roll=5)
    train, second = _pulse(train, 2, 32, 10)
    train, third = _pulse(train, 3, 1, 10)
    train, fourth = _pulse(train, 3, 2, 10)
    assert [r.damage for r in (first, second, third, fourth)] == [6, 6, 6, 6]
    assert not train.active
    charge = ppd.arm_second_turn(charge, 4, 4)
    assert ppd.can_fire(charge, 4)


def test_e11_24_cannot_begin_arming_with_reserve_power():
    assert ppd.can_arm_first_turn(ppd.new_charge(), 1, reserve=True) == (
        False, "E11.24 a PPD cannot begin arming with reserve power")
    with pytest.raises(PpdRuleError, match=r"^E11\.24"):
        ppd.arm_first_turn(ppd.new_charge(), 1, 4, reserve=True)


@pytest.mark.parametrize(("first", "second", "pulses"),
                         [(2, 2, 2), (2, 3, 2), (3, 3, 3), (4, 2, 3), (4, 4, 4)])
def test_e11_25_underload_one_pulse_per_two_energy(first, second, pulses):
    assert _armed(first, second).pulses == pulses


@pytest.mark.parametrize("energy", [0, 1, 5, True, 2.0])
def test_e11_25_two_to_four_energy_each_arming_turn(energy):
    with pytest.raises(PpdRuleError, match=r"^E11\.25 energy="):
        ppd.arm_first_turn(ppd.new_charge(), 1, energy)
    with pytest.raises(PpdRuleError, match=r"^E11\.25 energy="):
        ppd.arm_second_turn(ppd.arm_first_turn(ppd.new_charge(), 1, 4), 2, energy)


def test_e11_25_top_up_with_reserve_or_while_holding_up_to_full():
    charge = _armed(2, 2)
    assert ppd.top_up(charge, 2, 2).pulses == 3
    assert ppd.hold(charge, 3, top_up=4).pulses == 4
    with pytest.raises(PpdRuleError, match=r"^E11\.25 top_up=5"):
        ppd.top_up(charge, 2, 5)
    with pytest.raises(PpdRuleError, match=r"^E11\.25 turn=3"):
        ppd.top_up(charge, 3, 2)  # not held this turn


# ---------------------------------------------------------------- firing and wave-lock (E11.3)


def test_e11_30_underloaded_charge_pulses_fewer_impulses():
    train = _train(charge=_armed(2, 2, turn=1), impulse=8, ipt=8)
    assert train.pulses == 2 and train.schedule == ((2, 8), (3, 1))


def test_e11_30_pulse_schedule_crosses_the_turn_break_on_every_chart():
    assert ppd.pulse_schedule(1, 7, 4, 8) == ((1, 7), (1, 8), (2, 1), (2, 2))
    assert ppd.pulse_schedule(3, 16, 3, 16) == ((3, 16), (4, 1), (4, 2))
    with pytest.raises(PpdRuleError, match=r"^E11\.30 impulse=33"):
        ppd.pulse_schedule(1, 33, 4, 32)
    with pytest.raises(PpdRuleError, match=r"^E11\.25 pulses=1"):
        ppd.pulse_schedule(1, 1, 1, 32)


def test_e11_333_example_range_12_misses_on_11_then_locks_on_4():
    train = _train(12)
    train, first = _pulse(train, 2, 5, 12, roll=11)
    assert (first.locked, first.damage) == (False, 0)
    train, second = _pulse(train, 2, 6, 12, roll=4)
    assert (second.locked, second.damage) == (True, 5)
    # pulses 3 and 4 hit automatically: no dice
    train, third = _pulse(train, 2, 7, 12)
    train, fourth = _pulse(train, 2, 8, 12)
    assert [r.damage for r in (first, second, third, fourth)] == [0, 5, 5, 5]
    assert third.roll is None and fourth.roll is None and not train.active


def test_e11_333_pulses_cannot_be_skipped():
    train = _train(12)
    with pytest.raises(PpdRuleError, match=r"^E11\.333 turn=2 impulse=6"):
        _pulse(train, 2, 6, 12, roll=4)


def test_e11_333_deliberate_miss_releases_the_lock_and_the_next_pulse_rerolls():
    train = _train(10)
    train, _ = _pulse(train, 2, 5, 10, roll=2)
    train, missed = _pulse(train, 2, 6, 10, deliberate_miss=True)
    assert (missed.damage, train.locked) == (0, False)
    train, again = _pulse(train, 2, 7, 10, roll=12)
    assert (again.roll, again.locked, again.damage) == (12, False, 0)


def test_e11_34_example_lock_lost_behind_a_planet_is_reacquired_by_rolling():
    train = _train(12)
    train, _ = _pulse(train, 2, 5, 12, roll=11)
    train, blocked = _pulse(train, 2, 6, 12, line_blocked=True)
    assert (blocked.damage, blocked.rule) == (0, "E11.34")
    train, third = _pulse(train, 2, 7, 12, roll=9)  # failed re-acquisition
    assert third.damage == 0
    train, fourth = _pulse(train, 2, 8, 12, roll=3)
    assert fourth.damage == 5


def test_e11_31_roll_at_effective_range_damage_at_true_range():
    train = _train(12)
    _, miss = ppd.resolve_pulse(train, 2, 5, 24, 12, 7)  # hit number at 24 is 6
    _, hit = ppd.resolve_pulse(train, 2, 5, 24, 12, 6)
    assert (miss.locked, hit.locked, hit.damage) == (False, True, 5)
    _, beyond = ppd.resolve_pulse(train, 2, 5, 48, 12, 2)  # effective range off the chart
    assert not beyond.locked


def test_e11_31_dice_from_a_generator_and_missing_dice():
    train = _train(10)
    with pytest.raises(PpdRuleError, match=r"^E11\.31 roll"):
        _pulse(train, 2, 5, 10)
    a = _pulse(train, 2, 5, 10, generator=np.random.default_rng(7))[1]
    b = _pulse(train, 2, 5, 10, generator=np.random.default_rng(7))[1]
    assert a == b and 2 <= a.roll <= 12
    with pytest.raises(PpdRuleError, match=r"^E11\.31 roll=13"):
        _pulse(train, 2, 5, 10, roll=13)


def test_e11_312_no_fire_at_true_range_three_or_less():
    with pytest.raises(PpdRuleError, match=r"^E11\.312 true_range=3"):
        ppd.fire(_armed(), 2, 1, 3)
    with pytest.raises(PpdRuleError, match=r"^E11\.52 true_range=41"):
        ppd.fire(_armed(), 2, 1, 41)


def test_e11_21_fire_needs_an_armed_charge_paid_this_turn():
    with pytest.raises(PpdRuleError, match=r"^E11\.21 turn=3"):
        ppd.fire(_armed(), 3, 1, 10)
    with pytest.raises(PpdRuleError, match=r"^E11\.21"):
        ppd.fire(ppd.new_charge(), 1, 1, 10)


def test_e11_472_e11_475_cloaks():
    with pytest.raises(PpdRuleError, match=r"^E11\.475 firer_cloaked"):
        ppd.fire(_armed(), 2, 1, 10, firer_cloaked=True)
    with pytest.raises(PpdRuleError, match=r"^E11\.472 target_cloaked"):
        ppd.fire(_armed(), 2, 1, 10, target_cloaked=True)


def test_e11_52_example_range_10_then_11_then_10_scores_6_5_6():
    train = _train(10, impulse=5)
    train, p5 = _pulse(train, 2, 5, 10, roll=2)
    train, p6 = _pulse(train, 2, 6, 11)
    train, p7 = _pulse(train, 2, 7, 10)
    assert [p5.damage, p6.damage, p7.damage] == [6, 5, 6]


def test_e11_52_beyond_40_breaks_the_lock():
    train = _train(38)
    train, _ = _pulse(train, 2, 5, 38, roll=2)
    train, out = _pulse(train, 2, 6, 41)
    assert (out.damage, out.rule, train.ended_by, train.active) == (0, "E11.541", "E11.541", False)


def test_e11_521_myopic_zone_keeps_the_lock_but_scores_nothing():
    train = _train(5)
    train, p1 = _pulse(train, 2, 5, 5, roll=2)
    train, p2 = _pulse(train, 2, 6, 3)
    train, p3 = _pulse(train, 2, 7, 4)
    assert [p1.damage, p2.damage, p3.damage] == [6, 0, 6]
    assert p2.locked and p2.rule == "E11.521"


def test_e11_312_unlocked_pulse_in_the_myopic_zone_is_lost_unrolled():
    train = _train(5)
    train, p1 = _pulse(train, 2, 5, 5, roll=12)
    train, p2 = _pulse(train, 2, 6, 2, roll=2)
    assert (p2.roll, p2.locked, p2.damage, p2.rule) == (None, False, 0, "E11.312")
    train, p3 = _pulse(train, 2, 7, 4, roll=2)
    assert p3.damage == 6


# ---------------------------------------------------------------- targets without shields


def test_e11_353_example_drone_at_range_6_takes_4():
    train = _train(6, target=TargetKind.DRONE)
    _, pulse = _pulse(train, 2, 5, 6, roll=7)  # 7 + 2 = 9 <= 9 (FD1.52)
    assert (pulse.roll, pulse.damage) == (9, 4)
    assert ppd.unshielded_damage(6) == 4
    _, miss = _pulse(train, 2, 5, 6, roll=8)
    assert (miss.roll, miss.locked) == (10, False)


def test_e11_361_fighter_lock_lost_beyond_five_hexes_and_rolls_plus_one():
    with pytest.raises(PpdRuleError, match=r"^E11\.361 true_range=6"):
        ppd.fire(_armed(), 2, 5, 6, target=TargetKind.FIGHTER)
    train = _train(5, target=TargetKind.FIGHTER)
    train, p1 = _pulse(train, 2, 5, 5, roll=8)  # J4.47: 8 + 1 = 9 <= 9
    assert (p1.roll, p1.damage) == (9, 4)
    train, p2 = _pulse(train, 2, 6, 6)
    assert (p2.damage, train.ended_by) == (0, "E11.361")


# ---------------------------------------------------------------- splash (E11.35)


def test_e11_352_example_six_points_on_shield_3_is_1_4_1():
    assert ppd.splash_split(10, 3) == {2: 1, 3: 4, 4: 1}
    assert ppd.splash_split(10, 1) == {6: 1, 1: 4, 2: 1}  # wraps round


def test_e11_352_two_points_ignore_the_weaker_neighbour():
    strengths = (10, 20, 5, 8, 10, 10)
    assert ppd.splash_split(28, 3, strengths) == {2: 1, 3: 1}
    assert ppd.splash_split(28, 2, strengths) == {2: 1, 1: 1}
    with pytest.raises(PpdRuleError, match=r"^E11\.352 owner_choice=None"):
        ppd.splash_split(28, 6, strengths)
    assert ppd.splash_split(28, 6, strengths, owner_choice=5) == {5: 1, 6: 1}
    with pytest.raises(PpdRuleError, match=r"^E11\.352 shield_strength"):
        ppd.splash_split(28, 3)


def test_e11_352_one_point_ignores_both_neighbours():
    assert ppd.splash_split(35, 4, EQUAL) == {4: 1}


def test_e11_351_along_a_hex_side_odd_point_to_the_stronger_shield():
    assert ppd.alt_split(10, (1, 2)) == {1: 3, 2: 3}
    assert ppd.alt_split(12, (1, 2), (10, 12, 0, 0, 0, 0)) == {2: 3, 1: 2}
    assert ppd.alt_split(35, (6, 1), (10, 0, 0, 0, 0, 12)) == {6: 1}
    with pytest.raises(PpdRuleError, match=r"^E11\.351 owner_choice"):
        ppd.alt_split(12, (1, 2), EQUAL)
    assert ppd.alt_split(12, (1, 2), EQUAL, owner_choice=1) == {1: 3, 2: 2}
    with pytest.raises(PpdRuleError, match=r"^E11\.351 shields=\(1, 3\)"):
        ppd.alt_split(12, (1, 3), EQUAL)


def test_e11_353_ships_with_shields_down_still_take_the_splash():
    down = (0, 0, 0, 0, 0, 0)
    assert ppd.splash_split(10, 3, down) == {2: 1, 3: 4, 4: 1}


# ---------------------------------------------------------------- general reinforcement (E11.39)


def test_e11_39_example_two_general_reinforcement_spent_on_the_first_pulse():
    pulse = ppd.splash_split(10, 1)
    assert pulse == {2: 1, 1: 4, 6: 1}
    left, spare = ppd.absorb_general_reinforcement(pulse, 2, {6: 1, 1: 1})
    assert (left, spare) == ({2: 1, 1: 3, 6: 0}, 0)
    with pytest.raises(PpdRuleError, match=r"^E11\.39 allocation"):
        ppd.absorb_general_reinforcement(pulse, 2, {6: 1})  # saving a point for the next pulse
    with pytest.raises(PpdRuleError, match=r"^E11\.39 allocation\[6\]=2"):
        ppd.absorb_general_reinforcement(pulse, 2, {6: 2})


def test_e11_39_more_reinforcement_than_the_pulse_carries_over():
    assert ppd.absorb_general_reinforcement({2: 1, 1: 4, 6: 1}, 8) == ({2: 0, 1: 0, 6: 0}, 2)


# ---------------------------------------------------------------- lock events (E11.5)


def test_e11_54_breaking_events_and_e11_58_non_breaking_events():
    breaking = {e for e in LockEvent if ppd.breaks_wave_lock(e)}
    assert breaking == {
        LockEvent.TARGET_OUT_OF_ARC, LockEvent.TARGET_OUT_OF_RANGE, LockEvent.TARGET_DESTROYED,
        LockEvent.PPD_DESTROYED, LockEvent.FIRER_CAPTURED, LockEvent.PLANET_BLOCKS_FIRE,
        LockEvent.LOCK_DROPPED, LockEvent.LOCK_ON_LOST,
    }
    assert all(ppd.LOCK_EVENT_RULE[e].startswith("E11.54") for e in breaking)
    with pytest.raises(PpdRuleError, match=r"^E11\.5 event="):
        ppd.breaks_wave_lock(3)


@pytest.mark.parametrize("event", list(LockEvent))
def test_e11_54_e11_58_apply_event(event):
    train = _train(10)
    train, _ = _pulse(train, 2, 5, 10, roll=2)
    after = ppd.apply_event(train, event)
    if ppd.breaks_wave_lock(event):
        assert not after.active and after.ended_by == ppd.LOCK_EVENT_RULE[event].replace(
            "E11.548", "E11.362")
        with pytest.raises(PpdRuleError, match=r"^E11\.331"):
            _pulse(after, 2, 6, 10)
    else:
        assert after == train
        _, pulse = _pulse(after, 2, 6, 10)
        assert pulse.damage == 6


def test_e11_362_voluntary_drop_only_after_a_pulse_and_loses_the_rest():
    train = _train(10)
    with pytest.raises(PpdRuleError, match=r"^E11\.362"):
        ppd.drop_lock(train)
    train, _ = _pulse(train, 2, 5, 10, roll=2)
    dropped = ppd.drop_lock(train)
    assert (dropped.active, dropped.next_at, dropped.ended_by) == (False, None, "E11.362")
    with pytest.raises(PpdRuleError, match=r"^E11\.362"):
        ppd.drop_lock(dropped)
