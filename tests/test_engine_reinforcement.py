"""Shield reinforcement (D3.34) in ``engine/reinforcement.py``."""

from __future__ import annotations

import pytest

from sfb_env.engine.reinforcement import (
    Reinforcement,
    absorb_volley,
    activate_general,
    add_specific,
    allocate_reinforcement,
    end_of_turn,
    general_reinforcement_points,
)

SHIELDS = (20, 24, 20, 20, 20, 24)


def test_d3_343_example_general_specific_then_shield():
    # Front shield 20; 10 energy specific on #1, 6 general (3 GR).
    r = allocate_reinforcement(SHIELDS, 6, (10, 0, 0, 0, 0, 0))
    assert r.general == 3
    side = absorb_volley(SHIELDS, r, 2, 2)  # 2 points on another shield: GR 3 -> 1
    assert (side.general, side.specific, side.shield, side.internal) == (2, 0, 0, 0)
    assert side.shields == SHIELDS and side.reinforcement.general == 1
    front = absorb_volley(side.shields, side.reinforcement, 1, 15)
    assert (front.general, front.specific, front.shield, front.internal) == (1, 10, 4, 0)
    assert front.shields[0] == 16
    # Without reinforcement the shield would have fallen to 5.
    assert absorb_volley(SHIELDS, Reinforcement(), 1, 15).shields[0] == 5


def test_d3_3411_rules_file_004_general_held_inactive_then_activated():
    # Rules file 004 note (not in the book): GR off for the first 2 points, then switched on.
    r = allocate_reinforcement(SHIELDS, 6, (10, 0, 0, 0, 0, 0), general_active=False)
    side = absorb_volley(SHIELDS, r, 2, 2)
    assert (side.general, side.shield) == (0, 2) and side.shields[1] == 22
    front = absorb_volley(side.shields, activate_general(side.reinforcement), 1, 15)
    assert (front.general, front.specific, front.shield) == (3, 10, 2)
    assert front.shields[0] == 18


def test_d3_341_general_points_are_half_energy_rounded_down():
    assert [general_reinforcement_points(e) for e in (0, 1, 7, 10)] == [0, 0, 3, 5]


def test_d3_341_general_spent_from_any_direction_not_each():
    r = allocate_reinforcement(SHIELDS, 10)  # 5 GR, not 5 per shield
    a = absorb_volley(SHIELDS, r, 2, 3)
    b = absorb_volley(a.shields, a.reinforcement, 4, 3)
    assert (a.general, b.general, b.shield) == (3, 2, 1)
    assert b.reinforcement.general == 0


def test_d3_3411_general_absorbs_before_specific():
    r = allocate_reinforcement(SHIELDS, 4, (3, 0, 0, 0, 0, 0))
    hit = absorb_volley(SHIELDS, r, 1, 3)
    assert (hit.general, hit.specific) == (2, 1)
    assert hit.reinforcement.specific[0] == 2


def test_d3_342_specific_only_protects_its_shield():
    r = allocate_reinforcement(SHIELDS, 0, (5, 0, 0, 0, 0, 0))
    hit = absorb_volley(SHIELDS, r, 2, 3)
    assert (hit.specific, hit.shield) == (0, 3) and hit.reinforcement.specific[0] == 5


def test_d3_342_unused_reinforcement_does_not_carry_over():
    r = allocate_reinforcement(SHIELDS, 6, (4, 0, 0, 0, 0, 2))
    assert end_of_turn(r) == Reinforcement()


def test_d3_2_damage_beyond_shield_is_internal():
    hit = absorb_volley((3, 0, 0, 0, 0, 0), Reinforcement(), 1, 10)
    assert (hit.shield, hit.internal, hit.shields[0]) == (3, 7, 0)


def test_d3_343_down_shield_cannot_take_specific_but_general_still_blocks():
    down = (0, 24, 20, 20, 20, 24)
    with pytest.raises(ValueError, match=r"specific_energy\[0\].*D3\.343"):
        allocate_reinforcement(down, 0, (2, 0, 0, 0, 0, 0))
    with pytest.raises(ValueError, match=r"shield.*D3\.343"):
        add_specific(Reinforcement(), down, 1, 2)
    hit = absorb_volley(down, allocate_reinforcement(down, 4), 1, 5)
    assert (hit.general, hit.internal) == (2, 3)


def test_d3_34_reinforcement_needs_active_shields():
    with pytest.raises(ValueError, match=r"shields_active.*D3\.34"):
        allocate_reinforcement(SHIELDS, 4, shields_active=False)
    assert allocate_reinforcement(SHIELDS, 0, shields_active=False) == Reinforcement()


def test_h7_2_specific_added_mid_turn_before_marking():
    r = allocate_reinforcement(SHIELDS, 0, (2, 0, 0, 0, 0, 0))
    r = add_specific(r, SHIELDS, 1, 2)
    hit = absorb_volley(SHIELDS, r, 1, 4)
    assert (hit.specific, hit.shield) == (4, 0)


@pytest.mark.parametrize(("call", "words"), [
    (lambda: general_reinforcement_points(-2), ["general_energy", "D3.341"]),
    (lambda: allocate_reinforcement(SHIELDS[:5]), ["shields", "D3.34"]),
    (lambda: allocate_reinforcement(SHIELDS, 0, (1, 2)), ["specific_energy", "D3.342"]),
    (lambda: allocate_reinforcement(SHIELDS, 0, (-1, 0, 0, 0, 0, 0)),
     ["specific_energy[0]", "D3.342"]),
    (lambda: absorb_volley(SHIELDS, Reinforcement(), 7, 1), ["shield", "D3.2"]),
    (lambda: absorb_volley(SHIELDS, Reinforcement(), 1, -3), ["points", "D3.2"]),
    (lambda: absorb_volley(SHIELDS, Reinforcement(), 1, True), ["points", "D3.2"]),
    (lambda: add_specific(Reinforcement(), SHIELDS, 0, 1), ["shield", "D3.342"]),
    (lambda: Reinforcement(general=-1), ["Reinforcement.general", "D3.341"]),
    (lambda: Reinforcement(specific=(1,)), ["Reinforcement.specific", "D3.342"]),
])
def test_d3_34_bad_input_names_field_and_rule(call, words):
    with pytest.raises(ValueError) as err:
        call()
    for w in words:
        assert w in str(err.value)
