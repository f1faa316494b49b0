"""ESG rules module (G23): storage, announcement timing, field strength, damage priorities.

Every worked example of the G23 text is reproduced here under the rule that gives it.
"""

from __future__ import annotations

import numpy as np
import pytest

from sfb_env import hexmap
from sfb_env.engine import esg
from sfb_env.engine.esg import (
    CADET_CRUISER_MAX_ENERGY,
    Contact,
    ContactKind,
    ContactSize,
    Entry,
    EsgPhase,
    EsgRuleError,
)
from sfb_env.impulse import absolute_impulse
from sfb_env.tables import esg_strength

SHIP_NEEDS = 1000  # a ship is never destroyed by one field in these tests


def _active(radius: int = 2, energy: int = 5, ipt: int = 32, turn: int = 1,
            impulse: int = 5) -> esg.EsgGenerator:
    """A generator announced ``lead`` impulses before ``turn``/``impulse`` and released then."""
    gen = esg.new_generator(5, ipt, stored=energy)
    at = absolute_impulse(turn, impulse, ipt) - gen.lead
    t, i = divmod(at - 1, ipt)
    gen = esg.announce(gen, radius, t + 1, i + 1)
    gen = esg.launch_step(gen, turn, impulse)
    assert gen.phase == EsgPhase.ACTIVE
    return gen


def _walk(gen: esg.EsgGenerator, turn: int, first: int, last: int) -> esg.EsgGenerator:
    for impulse in range(first, last + 1):
        gen = esg.launch_step(gen, turn, impulse)
    return gen


# ---------------------------------------------------------------- storage (G23.21, G23.22)


def test_g23_211_energy_accumulates_over_turns_up_to_5():
    gen = esg.new_generator()
    for _ in range(5):
        gen = esg.charge(gen, 1)
    assert gen.stored == 5
    with pytest.raises(EsgRuleError, match=r"^G23\.22 .*capacity of 5"):
        esg.charge(gen, 1)
    assert esg.charge(gen, 0).stored == 5


def test_g23_22_cadet_cruiser_holds_at_most_2():
    gen = esg.new_generator(CADET_CRUISER_MAX_ENERGY, 16)
    gen = esg.charge(esg.charge(gen, 1), 1)
    with pytest.raises(EsgRuleError, match=r"^G23\.22"):
        esg.charge(gen, 1)
    with pytest.raises(EsgRuleError, match=r"^G23\.22"):
        esg.new_generator(CADET_CRUISER_MAX_ENERGY, 16, stored=3)


def test_g23_212_reserve_power_goes_to_the_generator_not_the_active_field():
    gen = esg.new_generator(5, 32, stored=3)
    gen = esg.announce(gen, 2, 1, 1)
    gen = esg.launch_step(gen, 1, 5)
    assert (gen.strength, gen.stored, gen.expires_at) == (10, 0, 37)  # all energy released
    topped = esg.charge(gen, 2)  # e.g. reserve power mid-turn
    assert (topped.strength, topped.expires_at, topped.stored) == (10, 37, 2)


def test_g23_22_bad_generator_and_energy_arguments():
    with pytest.raises(EsgRuleError, match=r"^G23\.22 max_energy=6"):
        esg.new_generator(6)
    with pytest.raises(EsgRuleError, match=r"^G23\.22 max_energy=0"):
        esg.new_generator(0)
    with pytest.raises(ValueError, match="impulses_per_turn 12"):
        esg.new_generator(5, 12)
    gen = esg.new_generator()
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(EsgRuleError, match=r"^G23\.211 energy="):
            esg.charge(gen, bad)
    assert esg.charge(gen, np.int64(2)).stored == 2


# ---------------------------------------------------------------- strength (G23.41, G23.42)


def test_g23_42_radius_2_with_3_energy_is_10_and_2_energy_is_7():
    assert esg_strength(2, 3) == 10
    assert esg_strength(2, 2) == 7
    assert _active(radius=2, energy=3).strength == 10
    assert _active(radius=2, energy=2).strength == 7


@pytest.mark.parametrize("radius", [0, 1, 2, 3])
def test_g23_42_released_strength_follows_the_chart(radius):
    for energy in range(1, 6):
        assert _active(radius=radius, energy=energy).strength == esg_strength(radius, energy)


def test_g23_41_radius_must_be_0_to_3():
    gen = esg.new_generator(5, 32, stored=5)
    for bad in (-1, 4, 2.0, None):
        with pytest.raises(EsgRuleError, match=r"^G23\.41 radius="):
            esg.announce(gen, bad, 1, 1)


# ---------------------------------------------------------------- announcement and release (G23.31)


@pytest.mark.parametrize(("ipt", "lead"), [(32, 4), (16, 2), (8, 1)])
def test_g23_31_release_comes_lead_impulses_after_announcement(ipt, lead):
    gen = esg.announce(esg.new_generator(5, ipt, stored=4), 1, 1, 3)
    assert gen.phase == EsgPhase.ANNOUNCED and gen.release_at == 3 + lead
    for impulse in range(3, 3 + lead):
        gen = esg.launch_step(gen, 1, impulse)
        assert gen.phase == EsgPhase.ANNOUNCED
        assert not esg.is_operating(gen, 1, impulse)
    gen = esg.launch_step(gen, 1, 3 + lead)
    assert gen.phase == EsgPhase.ACTIVE and gen.activated_at == 3 + lead
    assert gen.strength == esg_strength(1, 4) and gen.stored == 0
    # G23.43, G23.56: nothing is struck as it forms; it operates from the next Move Ships
    assert not esg.is_operating(gen, 1, 3 + lead)
    assert esg.is_operating(gen, 1, 4 + lead)


def test_g23_31_one_announcement_at_a_time_and_no_skipped_release():
    gen = esg.announce(esg.new_generator(5, 32, stored=5), 3, 1, 1)
    ok, why = esg.can_announce(gen, 1, 2)
    assert not ok and why.startswith("G23.31 a release is already announced")
    with pytest.raises(EsgRuleError, match=r"^G23\.31 a release is already announced"):
        esg.announce(gen, 1, 1, 2)
    with pytest.raises(EsgRuleError, match=r"^G23\.31 the announced release impulse was skipped"):
        esg.launch_step(gen, 1, 6)
    with pytest.raises(EsgRuleError, match=r"^G23\.31 the announced release is at turn 1 imp"):
        esg.release(gen, 1, 4)
    with pytest.raises(EsgRuleError, match=r"^G23\.31 no release is announced"):
        esg.release(esg.new_generator(), 1, 4)


def test_g23_31_bad_times():
    gen = esg.announce(esg.new_generator(5, 16, stored=5), 3, 2, 5)
    with pytest.raises(EsgRuleError, match=r"^G23\.31 bad time turn=1 impulse=17"):
        esg.launch_step(gen, 1, 17)
    with pytest.raises(EsgRuleError, match=r"^G23\.31 bad time turn=0"):
        esg.can_cancel(gen, 0, 1)
    with pytest.raises(EsgRuleError, match=r"^G23\.31 time runs backwards"):
        esg.launch_step(gen, 2, 4)


def test_g23_21_empty_generator_may_only_announce_across_a_turn_break():
    gen = esg.new_generator(5, 32)
    ok, why = esg.can_announce(gen, 1, 20)
    assert not ok and why == "G23.21 the generator holds no energy"
    assert esg.can_announce(gen, 1, 29) == (True, "")  # released turn 2 impulse 1
    gen = esg.announce(gen, 1, 1, 29)
    gen = esg.charge(gen, 2)  # Energy Allocation of turn 2
    gen = esg.launch_step(gen, 2, 1)
    assert gen.strength == esg_strength(1, 2)


def test_g23_322_release_with_no_energy_drops_at_once():
    gen = esg.announce(esg.new_generator(5, 32), 1, 1, 30)
    gen = esg.launch_step(gen, 2, 2)
    assert gen.phase == EsgPhase.IDLE and (gen.activated_at, gen.dropped_at) == (34, 34)


# ---------------------------------------------------------------- cancellation (G23.33)


@pytest.mark.parametrize(("ipt", "quarter"), [(32, 8), (16, 4), (8, 2)])
def test_g23_33_cancelled_announcement_locks_out_for_a_quarter_turn(ipt, quarter):
    gen = esg.new_generator(5, ipt, stored=5)
    gen = esg.announce(gen, 2, 1, 1)
    assert esg.can_cancel(gen, 1, 1) == (True, "")
    gen = esg.cancel(gen, 1, 1)
    assert gen.phase == EsgPhase.IDLE and gen.stored == 5  # not released: energy kept
    for impulse in range(1, 1 + quarter):
        ok, why = esg.can_announce(gen, 1, impulse)
        assert not ok and why.startswith("G23.33 an announcement was cancelled within 1/4 turn")
    with pytest.raises(EsgRuleError, match=r"^G23\.33 "):
        esg.announce(gen, 2, 1, quarter)
    assert esg.can_announce(gen, 1, 1 + quarter) == (True, "")
    # no G23.32/G23.323 penalty: the field was never released
    assert esg.earliest_activation(gen) is None


def test_g23_33_lockout_runs_across_the_turn_break():
    gen = esg.announce(esg.new_generator(5, 16, stored=5), 0, 1, 14)
    gen = esg.cancel(gen, 1, 15)
    assert not esg.can_announce(gen, 2, 2)[0]
    assert esg.can_announce(gen, 2, 3) == (True, "")  # 15 + 4 = impulse 19 = turn 2 impulse 3


def test_g23_33_cancel_only_before_the_release_impulse():
    gen = esg.announce(esg.new_generator(5, 32, stored=5), 1, 1, 1)
    assert esg.can_cancel(gen, 1, 4) == (True, "")
    assert esg.can_cancel(gen, 1, 5) == (False, "G23.33 only before the impulse of release")
    released = esg.launch_step(gen, 1, 5)
    assert esg.can_cancel(released, 1, 6) == (False, "G23.33 no release is announced")
    with pytest.raises(EsgRuleError, match=r"^G23\.33 no release is announced"):
        esg.cancel(esg.new_generator(), 1, 1)


# ---------------------------------------------------------------- active period and drops


@pytest.mark.parametrize("ipt", [8, 16, 32])
def test_g23_32_field_ends_after_one_turn_of_impulses(ipt):
    gen = _active(ipt=ipt, turn=1, impulse=ipt // 2)
    assert gen.expires_at == ipt // 2 + ipt
    gen = _walk(gen, 1, ipt // 2 + 1, ipt)
    gen = _walk(gen, 2, 1, ipt // 2 - 1)
    assert gen.phase == EsgPhase.ACTIVE
    # its last Move Ships is that of the expiry impulse; it ends in that Launch step
    assert esg.is_operating(gen, 2, ipt // 2)
    gen = esg.launch_step(gen, 2, ipt // 2)
    assert gen.phase == EsgPhase.IDLE and gen.dropped_at == ipt // 2 + ipt
    assert not esg.is_operating(gen, 2, ipt // 2 + 1)


def test_g23_47_voluntary_drop_is_immediate_and_cannot_weaken():
    gen = _active(turn=1, impulse=5)
    assert esg.can_drop(gen, 1, 5) == (False, "G23.711 the field was released in this step")
    assert esg.can_drop(gen, 1, 6) == (True, "")
    dropped = esg.drop(gen, 1, 6)
    assert dropped.phase == EsgPhase.IDLE and dropped.strength == 0 and dropped.dropped_at == 6
    assert not esg.is_operating(dropped, 1, 7)
    assert esg.can_drop(dropped, 1, 7) == (False, "G23.47 no field is operating")
    with pytest.raises(EsgRuleError, match=r"^G23\.47 no field is operating"):
        esg.drop(dropped, 1, 7)
    # an operating field cannot be announced again (G23.323) nor reduced (no such function)
    ok, why = esg.can_announce(gen, 1, 6)
    assert not ok and why.startswith("G23.323 the field is operating")
    ok, why = esg.can_drop(gen, 2, 5)
    assert not ok and why == "G23.32 the field has already expired"


def test_g23_323_example_activated_impulse_10_of_turn_2_dropped_in_turn_2():
    gen = _active(turn=2, impulse=10)
    assert gen.announced_at == absolute_impulse(2, 6, 32)  # announced impulse 6
    gen = esg.drop(gen, 2, 20)
    assert esg.earliest_activation(gen) == absolute_impulse(4, 1, 32)
    ok, why = esg.can_announce(gen, 3, 28)
    assert not ok and why == ("G23.323 no reactivation before turn 4 impulse 1; announce at "
                              "turn 3 impulse 29 or later")
    with pytest.raises(EsgRuleError, match=r"^G23\.323 no reactivation before turn 4 impulse 1"):
        esg.announce(gen, 1, 3, 28)
    gen = esg.charge(gen, 5)
    gen = esg.announce(gen, 1, 3, 29)  # announced impulse 29 of turn 3
    gen = _walk(gen, 3, 29, 32)
    gen = esg.launch_step(gen, 4, 1)
    assert gen.phase == EsgPhase.ACTIVE and gen.activated_at == absolute_impulse(4, 1, 32)


def test_g23_323_dropped_in_the_last_impulse_of_turn_2_still_waits_for_turn_4():
    gen = esg.drop(_active(turn=2, impulse=10), 2, 32)
    # 32 impulses after the drop would be turn 3 impulse 32; the second-turn clause binds
    assert esg.earliest_activation(gen) == absolute_impulse(4, 1, 32)


def test_g23_323_example_dropped_during_turn_3_waits_32_impulses():
    gen = _active(turn=2, impulse=10)
    voluntary = esg.drop(gen, 3, 5)
    assert esg.earliest_activation(voluntary) == absolute_impulse(4, 5, 32)
    assert not esg.can_announce(esg.charge(voluntary, 5), 3, 32)[0]  # would form 4:4
    assert esg.can_announce(esg.charge(voluntary, 5), 4, 1) == (True, "")  # forms 4:5
    expired = _walk(gen, 2, 11, 32)
    expired = _walk(expired, 3, 1, 10)  # ends by itself at turn 3 impulse 10
    assert expired.phase == EsgPhase.IDLE
    assert esg.earliest_activation(expired) == absolute_impulse(4, 10, 32)


@pytest.mark.parametrize("ipt", [8, 16])
def test_g23_323_cadet_charts_wait_16_or_8_impulses(ipt):
    gen = _active(ipt=ipt, turn=2, impulse=2)
    gen = esg.drop(gen, 3, 1)
    assert esg.earliest_activation(gen) == absolute_impulse(4, 1, ipt)
    gen = esg.drop(_active(ipt=ipt, turn=2, impulse=2), 2, 3)
    assert esg.earliest_activation(gen) == absolute_impulse(4, 1, ipt)


# ---------------------------------------------------------------- damage (G23.511, G23.52)


def test_g23_511_field_5_against_a_drone_is_left_at_1():
    strength, scored = esg.resolve_field(5, [Contact(7, needed=4, size=ContactSize.DRONE)])
    assert (strength, scored) == (1, {7: 4})


def test_g23_511_field_5_against_a_6_point_shuttle_drops_to_0_and_shuttle_takes_5():
    strength, scored = esg.resolve_field(5, [Contact(3, needed=6, size=ContactSize.SHUTTLE)])
    assert (strength, scored) == (0, {3: 5})


def test_g23_322_field_brought_to_zero_drops_then():
    gen = _active(radius=3, energy=2, turn=1, impulse=5)  # 6-point field
    (after,), volley = esg.strike([gen], [[Contact(3, needed=6, size=ContactSize.SHUTTLE)]], 1, 6)
    assert volley == {3: 6}
    assert after.phase == EsgPhase.IDLE and after.dropped_at == 6
    assert esg.earliest_activation(after) == absolute_impulse(3, 1, 32)


def test_g23_52_drone_shuttle_and_ship_on_a_5_point_field_take_2_2_1():
    contacts = [
        Contact(30, needed=SHIP_NEEDS, size=ContactSize.SHIP),
        Contact(20, needed=6, size=ContactSize.SHUTTLE),
        Contact(10, needed=4, size=ContactSize.DRONE),
    ]
    assert esg.resolve_field(5, contacts) == (0, {30: 1, 20: 2, 10: 2})


def test_g23_52_one_point_each_in_turn_skips_destroyed_units():
    contacts = [Contact(1, needed=1, size=ContactSize.DRONE),
                Contact(2, needed=3, size=ContactSize.SHUTTLE),
                Contact(3, needed=SHIP_NEEDS)]
    assert esg.resolve_field(9, contacts) == (0, {1: 1, 2: 3, 3: 5})
    # all destroyed before the field is gone: the rest of the field stays
    small = [Contact(1, needed=1, size=ContactSize.DRONE), Contact(2, needed=2)]
    assert esg.resolve_field(9, small) == (6, {1: 1, 2: 2})


def test_g23_52_die_breaks_ties_of_size():
    a = Contact(1, needed=4, size=ContactSize.DRONE, tie=2)
    b = Contact(2, needed=4, size=ContactSize.DRONE, tie=1)
    assert esg.resolve_field(3, [a, b]) == (0, {1: 1, 2: 2})


def test_g23_52_jumpers_then_esg_planet_mine_before_other_units():
    jumper = Contact(1, needed=3, size=ContactSize.SHIP, jumper=True)
    drone = Contact(2, needed=4, size=ContactSize.DRONE)
    mine = Contact(3, needed=2, kind=ContactKind.MINE)
    # step 1 (the jumping ship) is served whole before the smaller drone
    assert esg.resolve_field(4, [drone, jumper]) == (0, {2: 1, 1: 3})
    # step 4 mine before step 5 units
    assert esg.resolve_field(4, [drone, mine]) == (0, {2: 2, 3: 2})
    # step 2: another ESG field goes even before a jumper (G23.52 step 1 exception, G23.73)
    other = Contact(4, needed=3, kind=ContactKind.ESG_FIELD)
    assert esg.resolve_field(5, [jumper, other]) == (0, {1: 2, 4: 3})


def test_g23_65_a_planet_collapses_the_field_without_damage():
    planet = Contact(9, needed=0, kind=ContactKind.PLANET)
    drone = Contact(2, needed=4, size=ContactSize.DRONE)
    assert esg.resolve_field(12, [drone, planet]) == (0, {2: 0, 9: 0})


def test_g23_511_bad_damage_inputs():
    with pytest.raises(EsgRuleError, match=r"^G23\.42 strength=-1"):
        esg.resolve_field(-1, [])
    with pytest.raises(EsgRuleError, match=r"^G23\.511 needed\[1\]=-2"):
        esg.resolve_field(5, [Contact(1, needed=-2)])
    with pytest.raises(EsgRuleError, match=r"^G23\.52 a unit strikes the same field twice"):
        esg.resolve_field(5, [Contact(1, needed=2), Contact(1, needed=2)])


# ---------------------------------------------------------------- several fields (G23.12x, G23.512)


def _two_fields(radius_a: int = 0, radius_b: int = 0, impulse_b: int = 5):
    a = _active(radius=radius_a, energy=5, turn=1, impulse=5)
    b = _active(radius=radius_b, energy=5, turn=1, impulse=impulse_b)
    return a, b


def test_g23_122_two_20_point_fields_against_35_points_leave_0_and_5():
    a, b = _two_fields(impulse_b=7)  # a has been operating longer
    assert (a.strength, b.strength) == (20, 20)
    target = Contact(1, needed=35)
    (a2, b2), volley = esg.strike([a, b], [[target], [target]], 1, 8)
    assert (a2.strength, b2.strength) == (0, 5)
    assert a2.phase == EsgPhase.IDLE and b2.phase == EsgPhase.ACTIVE
    assert volley == {1: 35}  # G23.512: one volley for both fields of the ship
    # the older field goes first whatever the list order
    (b3, a3), _ = esg.strike([b, a], [[target], [target]], 1, 8)
    assert (a3.strength, b3.strength) == (0, 5)


def test_g23_122_same_release_owner_chooses_which_field_first():
    a, b = _two_fields()
    assert esg.interaction_order([a, b]) == [0, 1]
    assert esg.interaction_order([a, b], owner_choice=[1, 0]) == [1, 0]
    target = Contact(1, needed=35)
    (a2, b2), _ = esg.strike([a, b], [[target], [target]], 1, 8, order=[1, 0])
    assert (a2.strength, b2.strength) == (5, 0)
    with pytest.raises(EsgRuleError, match=r"^G23\.122 owner_choice"):
        esg.interaction_order([a, b], owner_choice=[0, 0])
    with pytest.raises(EsgRuleError, match=r"^G23\.122 order \[0, 2\] does not cover"):
        esg.strike([a, b], [[target], [target]], 1, 8, order=[0, 2])


def test_g23_122_different_radii_the_field_met_first_goes_first():
    inner, outer = _two_fields(radius_a=1, radius_b=3, impulse_b=7)
    assert esg.interaction_order([inner, outer]) == [1, 0]  # coming in from outside
    assert esg.interaction_order([inner, outer], from_inside=True) == [0, 1]


def test_g23_75_double_ram_is_one_volley():
    inner, outer = _two_fields(radius_a=1, radius_b=3)  # 18 and 15 points
    ship = [Contact(1, needed=SHIP_NEEDS, jumper=True)], [Contact(1, needed=SHIP_NEEDS)]
    fields, volley = esg.strike([inner, outer], [ship[1], ship[0]], 1, 6)
    assert volley == {1: 33}
    assert all(f.phase == EsgPhase.IDLE for f in fields)


def test_g23_12_a_destroyed_unit_is_not_struck_by_the_next_field():
    a, b = _two_fields(impulse_b=7)
    drone = Contact(2, needed=4, size=ContactSize.DRONE)
    (a2, b2), volley = esg.strike([a, b], [[drone], [drone]], 1, 8)
    assert (a2.strength, b2.strength, volley) == (16, 20, {2: 4})


def test_g23_51_strike_needs_operating_fields_and_matching_lists():
    gen = esg.announce(esg.new_generator(5, 32, stored=5), 1, 1, 1)
    with pytest.raises(EsgRuleError, match=r"^G23\.51 field 0 is not operating"):
        esg.strike([gen], [[Contact(1, needed=4)]], 1, 2)
    fresh = esg.launch_step(gen, 1, 5)
    with pytest.raises(EsgRuleError, match=r"^G23\.51 field 0 is not operating"):
        esg.strike([fresh], [[Contact(1, needed=4)]], 1, 5)  # G23.43: not as it forms
    with pytest.raises(EsgRuleError, match=r"^G23\.512 1 contact lists for 2 fields"):
        esg.strike([fresh, fresh], [[]], 1, 6)


def test_g23_121_generators_work_independently():
    a = _active(radius=3, turn=1, impulse=5)
    b = esg.new_generator(5, 32, stored=5)
    assert esg.can_announce(b, 1, 6) == (True, "")  # while the other operates
    b = esg.launch_step(esg.announce(b, 1, 1, 6), 1, 10)
    a = esg.drop(a, 1, 11)
    assert (a.phase, b.phase) == (EsgPhase.IDLE, EsgPhase.ACTIVE)


# ---------------------------------------------------------------- contact (G23.56-G23.574, G23.72)


def test_g23_574_turns_in_place_do_no_damage():
    assert esg.field_entry(2, 2, 2, ship_moved=False, unit_moved=False) == Entry.NONE


def test_g23_561_entering_and_moving_along_the_ring_damage_merely_being_does_not():
    assert esg.field_entry(2, 3, 2, ship_moved=False, unit_moved=True) == Entry.ENTERS
    assert esg.field_entry(2, 3, 2, ship_moved=True, unit_moved=False) == Entry.ENTERS
    assert esg.field_entry(2, 2, 2, ship_moved=False, unit_moved=True) == Entry.ENTERS
    assert esg.field_entry(2, 1, 2, ship_moved=False, unit_moved=True) == Entry.ENTERS_FROM_INSIDE
    assert esg.field_entry(2, 4, 3, ship_moved=True, unit_moved=False) == Entry.NONE


def test_g23_573_moving_in_parallel_on_the_ring_damages():
    assert esg.field_entry(3, 3, 3, ship_moved=True, unit_moved=True) == Entry.ENTERS


def test_g23_562_unit_on_a_forming_ring_is_outside():
    assert esg.field_entry(2, 2, 1, ship_moved=False, unit_moved=True) == Entry.JUMPS
    assert esg.field_entry(2, 2, 3, ship_moved=False, unit_moved=True) == Entry.NONE


def test_g23_571_example_ca_and_d7_moving_toward_each_other_make_contact():
    assert hexmap.distance("1010", "1007") == 3  # the CA's radius-3 field runs through 1007
    before, after = hexmap.distance("1010", "1006"), hexmap.distance("1009", "1007")
    entry = esg.field_entry(3, before, after, ship_moved=True, unit_moved=True)
    assert entry == Entry.JUMPS  # G23.52 step 1


def test_g23_572_example_d7_moving_away_avoids_the_field():
    before, after = hexmap.distance("1010", "1006"), hexmap.distance("1009", "1005")
    assert esg.field_entry(3, before, after, ship_moved=True, unit_moved=True) == Entry.NONE


def test_g23_72_zero_radius_inside_and_outside_units():
    assert esg.field_entry(0, 1, 0, ship_moved=False, unit_moved=True) == Entry.ENTERS  # G23.721
    out = esg.field_entry(0, 0, 1, ship_moved=False, unit_moved=True, inside=True)
    assert out == Entry.ENTERS_FROM_INSIDE  # G23.721
    assert esg.field_entry(0, 0, 1, ship_moved=True, unit_moved=False) == Entry.NONE  # G23.72
    # G23.723: parallel moves hit units outside the field, not those inside
    assert esg.field_entry(0, 0, 0, ship_moved=True, unit_moved=True) == Entry.ENTERS
    assert esg.field_entry(0, 0, 0, ship_moved=True, unit_moved=True, inside=True) == Entry.NONE


def test_g23_51_field_entry_rejects_impossible_moves():
    with pytest.raises(EsgRuleError, match=r"^G23\.51 distance 3 -> 1"):
        esg.field_entry(2, 3, 1, ship_moved=True, unit_moved=False)
    with pytest.raises(EsgRuleError, match=r"^G23\.51 distance 2 -> 3"):
        esg.field_entry(2, 2, 3, ship_moved=False, unit_moved=False)
    with pytest.raises(EsgRuleError, match=r"^G23\.41 radius=4"):
        esg.field_entry(4, 3, 3, ship_moved=True, unit_moved=True)
