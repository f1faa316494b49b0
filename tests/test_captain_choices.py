"""The captain's own choices (issue 11), through the engine with the rule texts' values: damage
control spread over several shields (D9.2), general reinforcement held inactive and switched on
later (the D3.3411 note of rules file 004), a drone's launch facing (FD1.2)."""

from __future__ import annotations

import pytest
from engine_helpers import of, row, run_to, scenario, unit

from sfb_env.engine import IllegalOrderError, Orders, energy, make_battle

# ----------------------------------------------------------------------------- D9.2 spread


def std(units, **rules):
    """A 32-impulse battle on the standard form and the standard DAC."""
    doc = scenario(units, rules={"energy": "standard", "damage": "standard_dac", **rules})
    doc["impulses_per_turn"] = 32
    return make_battle(doc, seed=0)


def duel(**rules):
    """Federation CA (agent, 1010-A) facing a motionless Klingon D7 (idle) 3 hexes ahead."""
    return std([unit("fed", "fed-ca", "blue", "1010", "A", 0),
                unit("d7", "klingon-d7", "red", "1007", "D", 0, controller="idle")], **rules)


def bare(b, u: int, **fields) -> Orders:
    """Energy orders with nothing armed, nothing into the capacitor, no recharge."""
    base = dict(speed=0, capacitor=0, recharge=0,
                arm={int(w): 0 for w in energy.heavy_rows(b, u)})
    base.update(fields)
    return Orders(**base)


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
