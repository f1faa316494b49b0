"""Fractional accounting (B3.2, rule ``fractional_accounting``, default false; CTH-DATA §7.3,
``engine.fractional``): without it every cost rounds up item by item; with it fractions add up,
only the turn total rounds up, and batteries may hold fractions."""

from __future__ import annotations

from fractions import Fraction

import pytest
from engine_helpers import of, row, scenario, unit

from sfb_env.engine import Maneuver, Orders, ScenarioError, energy, fractional, make_battle
from sfb_env.engine.types import WeaponType


def _orion(fractional_accounting: bool | None, speed: int = 20):
    """An Orion Raider (move cost 2/3; warp 20, impulse 3, 3 batteries: CTH-DATA §9.2) on the
    standard form, 32 impulses, against a motionless Klingon D7."""
    switches = {"energy": "standard", "damage": "standard_dac"}
    if fractional_accounting is not None:
        switches["fractional_accounting"] = fractional_accounting
    doc = scenario([unit("orion", "orion-raider", "blue", "1408", "A", speed),
                    unit("d7", "klingon-d7", "red", "2801", "E", 0)], rules=switches)
    doc["impulses_per_turn"] = 32
    return make_battle(doc, seed=0)


def _allocate(b, speed: int) -> None:
    """Impulse 0 -> 1: the Orion at ``speed`` with nothing else bought; the D7 stands still."""
    o, k = row(b, "orion"), row(b, "d7")
    photon = next(int(w) for w in b.weapons_of(o) if b.state.w_type[w] == WeaponType.PHOTON)
    m = Maneuver.STRAIGHT if Maneuver.STRAIGHT not in b.maneuver_blockers(o, speed) else (
        Maneuver.NONE)
    b.step({o: Orders(maneuver=m, speed=speed, arm={photon: 0}, capacitor=0, recharge=0),
            k: Orders(speed=0)})


def test_b3_2_rule_defaults_to_false_and_needs_an_energy_form():
    assert _orion(None).scenario.rules.fractional_accounting is False
    doc = scenario([unit("f", "fed-cadet", "blue", "0101", "C")],
                   rules={"fractional_accounting": True})
    with pytest.raises(ScenarioError, match="rules.fractional_accounting"):
        make_battle(doc)
    doc["rules"]["fractional_accounting"] = "yes"
    doc["rules"]["energy"] = "cadet"
    with pytest.raises(ScenarioError, match="expected true or false"):
        make_battle(doc)


def test_b3_2_anchor_orion_10_hexes_ph3_two_transporters_9_item_by_item_8_with_fractions():
    """CTH-DATA §7.3: moving 10 (6 2/3) + one Ph-3 (1/2) + two transporters (2/5): 9 points
    rounded item by item, 7.567 -> 8 with fractions. The movement line comes from the engine
    (an Orion at speed 11: one impulse point, ten warp hexes)."""
    for rule, total in ((False, 9), (True, 8)):
        b = _orion(rule)
        warp, impulse = energy.movement_cost(b, row(b, "orion"), 11)
        assert impulse == 1
        assert warp == (Fraction(20, 3) if rule else 7)
        lines = [fractional.EnergyLine("movement", Fraction(10) * Fraction(2, 3)),
                 fractional.EnergyLine("Ph-3", Fraction(energy.PHASER_DRAW[int(WeaponType.PH3)])),
                 fractional.EnergyLine("transporters", 2 * fractional.TRANSPORTER_ENERGY)]
        assert fractional.form_total(lines, rule) == total
    exact = Fraction(20, 3) + Fraction(1, 2) + Fraction(2, 5)
    assert round(float(exact), 3) == 7.567


def test_b3_2_transporter_line_goes_through_line_cost():
    """(G8.0, B3.2) two transporter uses: 2/5 with fractional accounting, else 1 point."""
    from sfb_env.engine import transporters

    assert transporters.energy_fraction(2) == 2 * fractional.TRANSPORTER_ENERGY
    for rule, cost in ((False, 1), (True, Fraction(2, 5))):
        b = _orion(rule)
        assert fractional.line_cost(b, transporters.energy_fraction(2)) == cost


def test_b3_2_round_line_rounds_each_item_up_without_the_rule():
    assert fractional.round_line(Fraction(4, 3), False) == 2  # CTH-DATA §7.3: 1 1/3 -> 2
    assert fractional.round_line(Fraction(4, 3), True) == Fraction(4, 3)
    assert fractional.round_line(3, False) == 3
    with pytest.raises(ValueError, match="B3.2"):
        fractional.round_line(Fraction(-1, 2), True)


def test_b3_2_engine_rounds_movement_up_item_by_item_by_default():
    """Default (no B3.2): speed 30 = 1 impulse + 29 warp hexes x 2/3 = 19 1/3 -> 20 warp, and
    20 + 1 + 4 (life support, fire control, shields) = 25 > 23 power: 2 batteries discharged."""
    b = _orion(None)
    _allocate(b, 30)
    o = row(b, "orion")
    (alloc,) = of(b, "EnergyAllocated", unit="orion")
    assert (alloc.used, alloc.batteries_used) == (25, 2)
    assert (int(b.state.batteries[o]), float(b.state.battery_fraction[o])) == (1, 0.0)


def test_b3_2_engine_fractions_add_up_and_batteries_hold_the_fraction():
    """With B3.2 the same orders cost 19 1/3 + 1 + 4 = 24 1/3: the 2/3 warp left after movement
    helps pay the systems, the batteries give 1 1/3 and keep 1 2/3 (one charged battery and a
    battery holding 2/3); the turn total rounds up to 25."""
    b = _orion(True)
    _allocate(b, 30)
    o = row(b, "orion")
    (alloc,) = of(b, "EnergyAllocated", unit="orion")
    assert alloc.used == 25
    assert alloc.batteries_used == pytest.approx(4 / 3)
    assert int(b.state.batteries[o]) == 1
    assert float(b.state.battery_fraction[o]) == pytest.approx(2 / 3)
    assert b.state.shields_active[o] and b.state.fire_control[o]


def _circling(b) -> dict[int, Orders]:
    """Turn right whenever the turn mode allows it (the Orion stays on the map), else
    straight; units that do not move next: none."""
    out = {}
    for u in b.agent_units():
        blocked = b.maneuver_blockers(u)
        out[u] = Orders(maneuver=next(m for m in (Maneuver.TURN_RIGHT, Maneuver.STRAIGHT,
                                                  Maneuver.NONE) if m not in blocked))
    return out


def test_b3_2_a_battery_fraction_pays_next_turn():
    """The 2/3 kept in a battery counts in the next allocation's pool (B3.2)."""
    b = _orion(True)
    _allocate(b, 30)
    o = row(b, "orion")
    while b.state.impulse != b.state.impulses_per_turn:  # to the last impulse of turn 1
        b.step(_circling(b))
    photon = next(int(w) for w in b.weapons_of(o) if b.state.w_type[w] == WeaponType.PHOTON)
    orders = _circling(b)
    orders[o].speed, orders[o].arm = 30, {photon: 0}
    orders[o].capacitor, orders[o].recharge = 0, 0
    b.step(orders)
    allocs = of(b, "EnergyAllocated", unit="orion")
    assert len(allocs) == 2
    # 1 2/3 in the batteries, 1 1/3 needed again: 1/3 left, held as a fraction
    assert int(b.state.batteries[o]) == 0
    assert float(b.state.battery_fraction[o]) == pytest.approx(1 / 3)
    assert allocs[1].shortfall == 0
