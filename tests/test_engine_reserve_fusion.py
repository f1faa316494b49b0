"""Reserve power for the single-turn heavy weapons in play (H7.2, CTH-DATA §7.6): a disruptor
(E3.2) or fusion beam (E7.21) not armed at Energy Allocation fires armed from 2 charged
batteries, through the same fire predicate as the masks, once a turn (H7.3, E1.5), never while
a fusion beam cools (E7.22)."""

from __future__ import annotations

import pytest
from engine_helpers import of, row, run_to, scenario, unit, weapon

from sfb_env.engine import IllegalOrderError, Orders, energy, make_battle


def _battle(ship: str, reserve_power: bool = True, ipt: int = 32):
    """``ship`` (agent, 1010-A, standard form) and a motionless idle Klingon D7 at 0808."""
    doc = scenario([unit("a", ship, "blue", "1010", "A", 0),
                    unit("d7", "klingon-d7", "red", "0808", "D", 0, controller="idle")],
                   rules={"energy": "standard", "damage": "standard_dac",
                          "reserve_power": reserve_power})
    doc["impulses_per_turn"] = ipt
    return make_battle(doc, seed=0)


def _nothing_armed(b, u: int) -> Orders:
    return Orders(speed=0, capacitor=0, recharge=0,
                  arm={int(w): 0 for w in energy.heavy_rows(b, u)})


def _klingon_attacker(reserve_power: bool = True, standing: bool = False):
    """A D7 (agent, nothing armed, no capacitor; ``standing``: the standing allocation, which
    arms every disruptor) 4 hexes from the idle D7 target."""
    doc = scenario([unit("a", "klingon-d7", "blue", "1010", "A", 0),
                    unit("d7", "klingon-d7", "red", "1006", "D", 0, controller="idle")],
                   rules={"energy": "standard", "damage": "standard_dac",
                          "reserve_power": reserve_power})
    doc["impulses_per_turn"] = 32
    b = make_battle(doc, seed=0)
    u = row(b, "a")
    b.step({u: Orders(speed=0) if standing else _nothing_armed(b, u)})
    return b, u, row(b, "d7")


def test_h7_2_e3_2_unarmed_disruptor_fires_armed_from_two_batteries():
    b, u, t = _klingon_attacker()
    w = weapon(b, "a", "DISR-A")
    assert not b.state.w_armed[w] and b.state.batteries[u] == 3
    assert b.fire_blockers(w, [t]) == [None]
    b.step({u: Orders(fire={w: t})})
    assert of(b, "Fired", unit="a", weapon="a.DISR-A")
    assert of(b, "ReserveDischarged", unit="a", use="fire:a.DISR-A", energy=2, left=1)
    assert b.state.batteries[u] == 1 and not b.state.w_armed[w]
    # (H7.3, E1.5) once a turn: the battery left could not arm it again anyway, nor another
    assert b.fire_blockers(w, [t])[0].startswith("H7.2")
    b.state.batteries[u] = 3
    assert b.fire_blockers(w, [t])[0].startswith("E1.5")


def test_e3_2_without_reserve_power_an_unarmed_disruptor_cannot_fire():
    b, u, t = _klingon_attacker(reserve_power=False)
    w = weapon(b, "a", "DISR-A")
    assert b.fire_blockers(w, [t])[0].startswith("E3.2")


def test_h7_2_one_battery_cannot_arm_a_disruptor_mask_and_engine_agree():
    b, u, t = _klingon_attacker()
    w = weapon(b, "a", "DISR-A")
    b.state.batteries[u] = 1
    rule = b.fire_blockers(w, [t])[0]
    assert rule.startswith("H7.2 E3.2")
    with pytest.raises(IllegalOrderError) as err:
        b.validate({u: Orders(fire={w: t})})
    assert err.value.rule == rule


def test_h7_2_two_disruptors_share_two_batteries_the_second_goes_unpowered():
    b, u, t = _klingon_attacker()
    b.state.batteries[u] = 2
    ws = [weapon(b, "a", "DISR-A"), weapon(b, "a", "DISR-B")]
    assert b.fire_blockers(ws[0], [t]) == b.fire_blockers(ws[1], [t]) == [None]  # each alone
    b.step({u: Orders(fire={w: t for w in ws})})
    assert len(of(b, "ReserveDischarged", unit="a")) == 1 and b.state.batteries[u] == 0
    assert of(b, "FireUnpowered", unit="a", weapon="a.DISR-B")
    assert [e.weapon for e in of(b, "Fired", unit="a")] == ["a.DISR-A"]


def test_e3_2_a_disruptor_armed_at_energy_allocation_takes_no_battery():
    b, u, t = _klingon_attacker(standing=True)
    w = weapon(b, "a", "DISR-A")
    assert b.state.w_armed[w] and b.fire_blockers(w, [t]) == [None]
    b.step({u: Orders(fire={w: t})})
    assert of(b, "Fired", unit="a", weapon="a.DISR-A")
    assert not of(b, "ReserveDischarged", unit="a") and b.state.batteries[u] == 3


def test_h7_2_e7_21_unarmed_fusion_beam_fires_from_batteries_then_cools_e7_22():
    b = _battle("hydran-ranger", ipt=8)
    u, t = row(b, "a"), row(b, "d7")
    b.step({u: _nothing_armed(b, u)})
    w = weapon(b, "a", "FUS-A")
    assert not b.state.w_armed[w] and b.state.batteries[u] == 4
    assert b.fire_blockers(w, [t]) == [None]
    b.step({u: Orders(fire={w: t})})
    assert of(b, "Fired", unit="a", weapon="a.FUS-A")
    assert of(b, "ReserveDischarged", unit="a", use="fire:a.FUS-A", energy=2, left=2)
    assert b.fire_blockers(w, [t])[0].startswith("E1.5")  # (H7.3) once a turn
    run_to(b, 2, 1)  # batteries still 2 or recharged: the beam cools all the same
    assert b.state.batteries[u] >= 2
    assert b.fire_blockers(w, [t])[0].startswith("E7.22")


def test_e7_21_without_reserve_power_an_unarmed_fusion_beam_cannot_fire():
    b = _battle("hydran-ranger", reserve_power=False)
    u, t = row(b, "a"), row(b, "d7")
    b.step({u: _nothing_armed(b, u)})
    assert b.fire_blockers(weapon(b, "a", "FUS-A"), [t])[0].startswith("E7.21")
