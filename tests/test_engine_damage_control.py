"""Damage control: shield repair in combat (D9.0-D9.2) in ``engine/damage_control.py``."""

from __future__ import annotations

import pytest

from sfb_env.data.ships import load_ship
from sfb_env.engine.damage_control import (
    damage_control_rating,
    plan_damage_control,
    repair_shields,
)

TRACK = (4, 4, 2, 2, 2, 0)  # full-size ships (D7, Fed CA, ...)
PRINTED = (30, 22, 15, 13, 15, 22)  # D7 shields


def test_d9_2_example_four_energy_repairs_two_boxes():
    rating = damage_control_rating(load_ship("klingon-d7").damage_control_track, 6)
    assert rating == 4
    # Two boxes of #1 lost on turn 1; 4 energy on turn 2 repairs both at the end of turn 2.
    plan = plan_damage_control(rating, {1: 4}, (2, 0, 0, 0, 0, 0))
    assert plan.repairs == (2, 0, 0, 0, 0, 0) and plan.total_energy == 4
    assert repair_shields((28, 22, 15, 13, 15, 22), PRINTED, plan) == PRINTED


def test_d9_2_repair_is_spent_each_turn():
    # One turn's energy yields boxes once; the next turn's repairs need new energy.
    plan = plan_damage_control(4, {1: 4}, (3, 0, 0, 0, 0, 0))
    after = repair_shields((27, 22, 15, 13, 15, 22), PRINTED, plan)
    assert after[0] == 29
    nothing = plan_damage_control(4, {}, (1, 0, 0, 0, 0, 0))
    assert repair_shields(after, PRINTED, nothing) == after


def test_d9_1_rating_is_best_undestroyed_box():
    assert [damage_control_rating(TRACK, n) for n in (6, 5, 4, 1)] == [4, 4, 2, 0]


def test_d9_2_rating_cut_during_turn_applies_next_turn():
    plan = plan_damage_control(4, {1: 4}, (2, 0, 0, 0, 0, 0))
    # The track loses two boxes mid-turn (rating 4 -> 2): this turn's plan still repairs 2.
    assert repair_shields((28, 22, 15, 13, 15, 22), PRINTED, plan)[0] == 30
    next_rating = damage_control_rating(TRACK, 4)
    with pytest.raises(ValueError, match=r"energy.*rating 2.*D9\.2"):
        plan_damage_control(next_rating, {1: 4}, (2, 0, 0, 0, 0, 0))


def test_d9_2_two_energy_per_box_odd_point_wasted():
    plan = plan_damage_control(4, {1: 3}, (2, 0, 0, 0, 0, 0))
    assert plan.repairs[0] == 1


def test_d9_2_several_named_shields_share_the_rating():
    plan = plan_damage_control(4, {1: 2, 4: 2}, (1, 0, 0, 1, 0, 0))
    assert plan.repairs == (1, 0, 0, 1, 0, 0)
    with pytest.raises(ValueError, match=r"energy.*5.*rating 4.*D9\.2"):
        plan_damage_control(4, {1: 2, 4: 3}, (1, 0, 0, 2, 0, 0))


def test_d9_2_no_energy_for_undamaged_boxes():
    with pytest.raises(ValueError, match=r"energy\[2\].*anticipation.*D9\.2"):
        plan_damage_control(4, {2: 2}, (2, 0, 0, 0, 0, 0))
    with pytest.raises(ValueError, match=r"energy\[1\].*D9\.2"):
        plan_damage_control(4, {1: 4}, (1, 0, 0, 0, 0, 0))


def test_d9_2_no_reserve_power():
    with pytest.raises(ValueError, match=r"reserve_energy.*D9\.2"):
        plan_damage_control(4, {1: 2}, (1, 0, 0, 0, 0, 0), reserve_energy=2)


def test_d9_2_repair_never_above_printed_boxes():
    plan = plan_damage_control(4, {1: 4}, (2, 0, 0, 0, 0, 0))
    assert repair_shields((29, 22, 15, 13, 15, 22), PRINTED, plan)[0] == 30


@pytest.mark.parametrize(("call", "words"), [
    (lambda: damage_control_rating(TRACK, 7), ["remaining", "D4.33"]),
    (lambda: damage_control_rating(TRACK, -1), ["remaining", "D9.1"]),
    (lambda: damage_control_rating((4.0, 2), 2), ["track", "D9.1"]),
    (lambda: plan_damage_control(-1, {}, (0,) * 6), ["rating", "D9.1"]),
    (lambda: plan_damage_control(4, {7: 2}, (0,) * 6), ["shield #7", "D9.2"]),
    (lambda: plan_damage_control(4, {0: 2}, (0,) * 6), ["energy shield", "D9.2"]),
    (lambda: plan_damage_control(4, {1: -2}, (0,) * 6), ["energy[1]", "D9.2"]),
    (lambda: plan_damage_control(4, {}, (0,) * 5), ["destroyed_before_turn", "D9.2"]),
    (lambda: plan_damage_control(4, {}, (0, 0, 0, 0, 0, -1)),
     ["destroyed_before_turn[5]", "D9.2"]),
    (lambda: repair_shields((31,) + PRINTED[1:], PRINTED,
                            plan_damage_control(4, {}, (0,) * 6)), ["shields[0]", "D9.2"]),
    (lambda: repair_shields(PRINTED[:3], PRINTED, plan_damage_control(4, {}, (0,) * 6)),
     ["shields/max_shields", "D9.2"]),
])
def test_d9_bad_input_names_field_and_rule(call, words):
    with pytest.raises(ValueError) as err:
        call()
    for w in words:
        assert w in str(err.value)
