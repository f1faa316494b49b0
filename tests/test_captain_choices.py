"""The captain's own choices (issue 11), through the engine with the rule texts' values: damage
control spread over several shields (D9.2), general reinforcement held inactive and switched on
later (the D3.3411 note of rules file 004), a drone's launch facing (FD1.2), batteries kept out
of a struck shield (H7.1, H7.2), reserve power into an ESG generator (G23.212)."""

from __future__ import annotations

import pytest
from engine_helpers import (
    bare_orders,
    battle,
    of,
    row,
    run_to,
    standard_battle,
    standard_duel,
    unit,
    weapon,
)

from sfb_env.engine import IllegalOrderError, Orders, dac, energy

# ----------------------------------------------------------------------------- D9.2 spread


std, duel, bare = standard_battle, standard_duel, bare_orders



def hit_turn_1(b, u: int, lost: dict[int, int]) -> None:
    """Turn 1: shields lose ``lost`` boxes, then on to the allocation for turn 2."""
    b.step({u: bare(b, u)})
    for shield, n in lost.items():
        b.apply_damage(u, shield, n)
    run_to(b, 1, 32)


def test_d9_2_rating_4_spread_over_two_shields_repairs_one_box_each():
    """D9.2: 4 energy (the rating) repair two boxes, on the shields the player names."""
    b = duel(damage_control=True)
    u, s = row(b, "fed"), b.state
    hit_turn_1(b, u, {1: 1, 2: 3})
    before = [int(v) for v in s.shields[u]]
    assert 1 not in energy.repair_box_blockers(b, u, 1)
    assert not energy.repair_box_blockers(b, u, 2)
    b.step({u: bare(b, u, repair_boxes={1: 1, 2: 1})})
    assert tuple(s.dc_repairs[u]) == (1, 1, 0, 0, 0, 0)
    run_to(b, 2, 32)
    b.step({u: bare(b, u)})
    assert s.shields[u, 0] == before[0] + 1 and s.shields[u, 1] == before[1] + 1
    assert of(b, "ShieldsRepaired", unit="fed")[0].repairs == (1, 1, 0, 0, 0, 0)


def test_d9_2_spread_over_the_rating_is_trimmed_in_shield_order():
    """D9.2 energy up to the rating: 1 + 2 boxes ask 6 energy; the rating 4 pays 2 boxes."""
    b = duel(damage_control=True)
    u, s = row(b, "fed"), b.state
    hit_turn_1(b, u, {1: 2, 2: 3})
    b.validate({u: bare(b, u, repair_boxes={1: 1, 2: 2})})  # each alone is within the rating
    b.step({u: bare(b, u, repair_boxes={1: 1, 2: 2})})
    assert tuple(s.dc_repairs[u]) == (1, 1, 0, 0, 0, 0)


def test_d9_2_no_box_in_anticipation_and_half_the_rating_with_the_mask_rule():
    """D9.2: only boxes destroyed on earlier turns; 2 energy a box, the rating at most."""
    b = duel(damage_control=True)
    u = row(b, "fed")
    hit_turn_1(b, u, {1: 1})
    closed = energy.repair_box_blockers(b, u, 1)
    assert set(closed) == {2} and closed[2].startswith("D9.2 shield #1 lost 1 boxes")
    assert set(energy.repair_box_blockers(b, u, 3)) == {1, 2}
    with pytest.raises(IllegalOrderError) as err:
        b.validate({u: bare(b, u, repair_boxes={1: 2})})
    assert err.value.rule == closed[2]


def test_d9_2_a_rating_cut_to_2_repairs_one_box_a_turn():
    """D9.1, D9.2: two damage-control boxes lost leave the Fed CA track [4, 4, 2, 2, 2, 0] at
    rating 2: 2 energy, one box, on either shield."""
    b = duel(damage_control=True)
    u = row(b, "fed")
    hit_turn_1(b, u, {1: 2, 2: 2})
    b.state.dac_boxes[u, dac.DacBox.DAMAGE_CONTROL] = 4
    assert energy.dc_rating(b, u) == 2
    for shield in (1, 2):
        closed = energy.repair_box_blockers(b, u, shield)
        assert set(closed) == {2}
        assert closed[2].startswith("D9.2 the damage control rating is 2: at most 1 boxes")
    b.step({u: bare(b, u, repair_boxes={1: 1, 2: 1})})  # together over the rating: #1 first
    assert tuple(b.state.dc_repairs[u]) == (1, 0, 0, 0, 0, 0)


def test_d9_2_repair_boxes_closed_between_energy_allocations():
    b = duel(damage_control=True)
    u = row(b, "fed")
    b.step({u: bare(b, u)})
    assert energy.repair_box_blockers(b, u, 1)[1] == energy.NOT_NOW
    with pytest.raises(IllegalOrderError, match="B3.0 energy is allocated only"):
        b.validate({u: Orders(repair_boxes={1: 1})})


# ----------------------------------------------------------------------------- D3.3411 hold


def test_d3_3411_note_general_held_inactive_then_switched_on_front_shield_loses_2():
    """The D3.343 example with the D3.3411 note: 20-box front shield, 10 specific on #1, 6
    energy GR (3 points) held inactive; 2 points on another shield pass the GR; switched on,
    the 15 points on #1 lose 3 to GR, 10 to specific and 2 boxes: 18 left."""
    b = duel(reinforcement=True)
    u, s = row(b, "fed"), b.state
    s.shields[u, 0] = 20
    b.step({u: bare(b, u, reinforce={1: 10}, reinforce_general=3,
                     reinforce_hold=energy.HOLD_GENERAL)})
    assert s.reinf_general[u] == 3 and s.reinf_held[u]
    other = int(s.shields[u, 2])
    b.apply_damage(u, 3, 2)  # held GR absorbs nothing
    assert s.shields[u, 2] == other - 2 and s.reinf_general[u] == 3
    b.step({u: Orders(reinforce_hold=energy.ACTIVATE_GENERAL)})
    assert not s.reinf_held[u]
    assert of(b, "GeneralReinforcementHeld", unit="fed", active=True)
    b.apply_damage(u, 1, 15)
    assert s.shields[u, 0] == 18 and s.internal[u] == 0
    assert (s.reinf_general[u], s.reinf_specific[u, 0]) == (0, 0)


def test_d3_3411_automatic_general_reinforcement_is_active_from_energy_allocation():
    """The no-op: GR absorbs the first points from any direction (D3.341)."""
    b = duel(reinforcement=True)
    u, s = row(b, "fed"), b.state
    b.step({u: bare(b, u, reinforce_general=3)})
    assert not s.reinf_held[u]
    other = int(s.shields[u, 2])
    b.apply_damage(u, 3, 2)
    assert s.shields[u, 2] == other and s.reinf_general[u] == 1


def test_d3_3411_hold_and_switch_on_are_refused_with_the_mask_rule():
    b = duel(reinforcement=True)
    u, s = row(b, "fed"), b.state
    at_allocation = energy.reinforce_hold_blockers(b, u)
    assert set(at_allocation) == {energy.ACTIVATE_GENERAL}
    b.step({u: bare(b, u, reinforce_general=2)})  # GR bought, not held
    closed = energy.reinforce_hold_blockers(b, u)
    assert set(closed) == {energy.HOLD_GENERAL, energy.ACTIVATE_GENERAL}
    for value in (energy.HOLD_GENERAL, energy.ACTIVATE_GENERAL):
        with pytest.raises(IllegalOrderError) as err:
            b.validate({u: Orders(reinforce_hold=value)})
        assert err.value.rule == closed[value]
    s.reinf_held[u] = True  # as if held at Energy Allocation
    assert set(energy.reinforce_hold_blockers(b, u)) == {energy.HOLD_GENERAL}
    b.validate({u: Orders(reinforce_hold=energy.ACTIVATE_GENERAL)})


def test_d3_3411_held_general_reinforcement_ends_with_the_turn():
    b = duel(reinforcement=True)
    u, s = row(b, "fed"), b.state
    b.step({u: bare(b, u, reinforce_general=2, reinforce_hold=energy.HOLD_GENERAL)})
    assert s.reinf_held[u]
    run_to(b, 2, 1)
    assert not s.reinf_held[u] and s.reinf_general[u] == 0


# ----------------------------------------------------------------------------- H7.1 keep


def h7_3_example(keep: int):
    """The H7.3 example: a Federation CA, two phasers fired on battery power (2 of its 4
    batteries left charged), shield #1 specifically reinforced with 2, then 4 damage on #1;
    ``keep`` is the owner's ``reserve_shields`` order of the impulse."""
    b = duel(reinforcement=True, reserve_power=True)
    u, s = row(b, "fed"), b.state
    b.step({u: bare(b, u, reinforce={1: 2}, reserve_shields=keep)})
    s.batteries[u] = 2  # two units drawn for the phasers (H7.3 example)
    before = int(s.shields[u, 0])
    b.apply_damage(u, 1, 4)
    return b, u, s, before


def test_h7_3_example_automatic_discharges_the_last_two_batteries_into_the_front_shield():
    """The no-op (PROPOSAL [P-031]): "none of the damage is permanent"."""
    b, u, s, before = h7_3_example(0)
    assert s.shields[u, 0] == before and s.internal[u] == 0
    assert s.batteries[u] == 0
    assert of(b, "ReserveDischarged", unit="fed", use="reinforce:#1")[0].energy == 2


def test_h7_1_h7_3_example_with_the_batteries_kept_the_shield_takes_the_damage():
    """H7.1 "at the option of the owning player": kept, the specific 2 stop two points, the
    other two destroy two boxes of #1, and the two batteries stay charged."""
    b, u, s, before = h7_3_example(energy.KEEP_RESERVE)
    assert s.shields[u, 0] == before - 2 and s.internal[u] == 0
    assert s.batteries[u] == 2 and s.reserve_kept[u]
    assert not of(b, "ReserveDischarged", unit="fed")


def test_h7_1_the_keep_order_lasts_until_the_next_decision_point():
    """Kept at one impulse, automatic again at the next: a later volley takes the batteries."""
    b, u, s, before = h7_3_example(energy.KEEP_RESERVE)
    b.step({u: Orders()})
    assert not s.reserve_kept[u]
    b.apply_damage(u, 1, 2)
    assert s.shields[u, 0] == before - 2 and s.batteries[u] == 0


def test_h7_1_keep_order_at_an_impulse_and_refused_without_reserve_power():
    """Open at every decision point under ``rules.reserve_power`` (H7.1 "at any time"), and
    refused with the mask's rule where the scenario has no reserve power."""
    b = duel(reinforcement=True, reserve_power=True)
    u = row(b, "fed")
    assert not energy.reserve_shields_blockers(b, u)
    b.step({u: bare(b, u)})
    assert not energy.reserve_shields_blockers(b, u)
    b.validate({u: Orders(reserve_shields=energy.KEEP_RESERVE)})
    b = duel(reinforcement=True)
    closed = energy.reserve_shields_blockers(b, u)
    assert set(closed) == {energy.KEEP_RESERVE}
    with pytest.raises(IllegalOrderError) as err:
        b.validate({u: bare(b, u, reserve_shields=energy.KEEP_RESERVE)})
    assert err.value.rule == closed[energy.KEEP_RESERVE]


# ----------------------------------------------------------------------------- G23.212


def lyran_duel(reserve_power: bool = True):
    """A Lyran Tiger (agent, two ESGs of 5) facing an idle D7, at turn 1 impulse 1."""
    b = std([unit("ly", "lyran-tiger", "blue", "1010", "A", 0),
             unit("d7", "klingon-d7", "red", "1007", "D", 0, controller="idle")],
            reserve_power=reserve_power)
    u = row(b, "ly")
    b.step({u: bare(b, u)})
    return b, u, [int(w) for w in b.esg_rows(u)]


def test_g23_212_reserve_power_goes_into_the_generator_at_an_impulse():
    """G23.212 "reserve power can be added to the ESG generator", at any time (H7.1): 3 of
    the Tiger's 4 batteries into a generator holding 2 of 5 fill it."""
    b, u, (w, _) = lyran_duel()
    s = b.state
    s.esg_stored[w], s.batteries[u] = 2, 4
    assert not energy.esg_reserve_blockers(b, u, w).get(3)
    b.step({u: Orders(esg_reserve={w: 3})})
    assert (s.esg_stored[w], s.batteries[u]) == (5, 1)
    (ev,) = of(b, "ReserveDischarged", unit="ly")
    assert (ev.use, ev.energy, ev.left) == (f"esg:{b.weapon_ids[w]}", 3, 1)


def test_g23_22_h7_1_room_and_charged_batteries_close_values_with_the_mask_rule():
    """G23.22 at most 5 in the generator; H7.1 no more than the charged batteries."""
    b, u, (w, _) = lyran_duel()
    s = b.state
    s.esg_stored[w], s.batteries[u] = 1, 2
    closed = energy.esg_reserve_blockers(b, u, w)
    assert set(closed) == {3, 4, 5}
    assert closed[3] == "H7.1 only 2 batteries are charged"
    s.esg_stored[w] = 4
    closed = energy.esg_reserve_blockers(b, u, w)
    assert set(closed) == {2, 3, 4, 5} and closed[2].startswith("G23.22 the generator has room")
    with pytest.raises(IllegalOrderError) as err:
        b.validate({u: Orders(esg_reserve={w: 2})})
    assert err.value.rule == closed[2]


def test_g23_212_two_generators_together_trimmed_to_the_batteries_in_row_order():
    """[P-083] each ``esg_reserve[g]`` is masked alone; together over the batteries the first
    generator is paid first and the second takes what is left."""
    b, u, (w1, w2) = lyran_duel()
    s = b.state
    s.esg_stored[[w1, w2]], s.batteries[u] = 0, 4
    b.step({u: Orders(esg_reserve={w1: 3, w2: 3})})
    assert (s.esg_stored[w1], s.esg_stored[w2], s.batteries[u]) == (3, 1, 0)


def test_g23_212_closed_without_reserve_power():
    b, u, (w, _) = lyran_duel(reserve_power=False)
    closed = energy.esg_reserve_blockers(b, u, w)
    assert set(closed) == {1, 2, 3, 4, 5} and closed[1].startswith("H7.0")
    with pytest.raises(IllegalOrderError):
        b.validate({u: Orders(esg_reserve={w: 1})})
    b, u, (w, _) = lyran_duel()
    assert set(energy.esg_reserve_blockers(b, u, 0)) == {1, 2, 3, 4, 5}  # not an ESG row
    for bad in ({"ESG-1": 1}, {w: 6}, {0: 1}):
        with pytest.raises(IllegalOrderError):
            b.validate({u: Orders(esg_reserve=bad)})


# ----------------------------------------------------------------------------- FD1.2 facing


def drone_duel(target_hex: str, launch_facing: bool = True, k_hex: str = "0808"):
    """A Klingon cadet (agent, ``k_hex`` facing A) and a Federation cadet in ``target_hex``,
    at impulse 1 (drones launch from the first impulse)."""
    b = battle([unit("k", "klingon-cadet", "red", k_hex, "A", 0),
                unit("fed", "fed-cadet", "blue", target_hex, "A", 0)],
               rules={"launch_facing": launch_facing})
    run_to(b, 1, 1)
    return b, row(b, "k"), weapon(b, "k", "DRONE-1"), row(b, "fed")


def test_fd1_2_the_owner_picks_any_facing_with_the_target_in_the_drone_fa():
    """FD1.2 "facing any direction at the option of the owning player so long as the target is
    in the drone's FA": 0803 lies straight ahead (direction A) of 0808, so F, A and B keep it in
    the FA (on its edges for F and B) and C, D, E do not."""
    for facing, letter in ((1, "B"), (5, "F"), (0, "A")):
        b, k, rack, fed = drone_duel("0803")
        assert [b.launch_facing_blocker(rack, fed, f) is None for f in range(6)] == [
            True, True, False, False, False, True]
        b.step({k: Orders(launch={rack: fed}, launch_facing={rack: facing})})
        (ev,) = of(b, "Launched")
        assert (ev.hex, ev.facing) == ("0808", letter)
        assert b.state.facing[row(b, ev.drone)] == facing


def test_fd1_2_a_facing_without_the_target_in_the_fa_is_refused_with_the_mask_rule():
    b, k, rack, fed = drone_duel("0803")
    rule = b.launch_facing_blocker(rack, fed, 3)
    assert rule == "FD1.2 facing D does not put the target in the drone's FA"
    with pytest.raises(IllegalOrderError) as err:
        b.validate({k: Orders(launch={rack: fed}, launch_facing={rack: 3})})
    assert err.value.rule == rule
    with pytest.raises(IllegalOrderError, match="goes with a launch order"):
        b.validate({k: Orders(launch_facing={rack: 0})})


def test_fd1_2_automatic_facing_without_the_switch_and_the_facing_order_refused():
    """Without ``rules.launch_facing`` the engine's facing (closing fastest) as before."""
    b, k, rack, fed = drone_duel("0803", launch_facing=False)
    rule = b.launch_facing_blocker(rack, fed, 1)
    assert rule is not None and rule.startswith("FD1.2 the engine picks")
    with pytest.raises(IllegalOrderError) as err:
        b.validate({k: Orders(launch={rack: fed}, launch_facing={rack: 1})})
    assert err.value.rule == rule
    b.step({k: Orders(launch={rack: fed})})
    assert of(b, "Launched")[0].facing == "A"


def test_f2_3_in_the_targets_hex_only_the_launchers_facing():
    """F2.3 (CTH-DATA §1.5): launched in the target's hex the drone is judged from the hex
    astern, the target straight ahead: it takes the launcher's facing."""
    b, k, rack, fed = drone_duel("0808")
    assert [b.launch_facing_blocker(rack, fed, f) is None for f in range(6)] == [
        True, False, False, False, False, False]
