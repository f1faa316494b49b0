"""Cadet Energy Allocation (B3.0, CTH-DATA §7.1-7.3): power, movement, acceleration, arming and
holding cycles (E3.2, E4.2, E7.21, FP1.22, FP2.0), the phaser capacitor (H6.0-H6.2), batteries,
the cadet cloak's decision and cost (G13.0), the clamp priority and the scenario rule."""

from __future__ import annotations

import pytest
from engine_helpers import Dice, of, row, run_to, scenario, unit, weapon

from sfb_env.data.ships import load_ship
from sfb_env.engine import IllegalOrderError, Orders, energy, make_battle
from sfb_env.engine.scenario import ScenarioError, load_scenario
from sfb_env.engine.types import ArmOrder, Box

NONE, ARM, HOLD = int(ArmOrder.NONE), int(ArmOrder.ARM), int(ArmOrder.HOLD)


def _battle(own: str = "fed-cadet", enemy: str = "klingon-cadet", speed: int = 0,
            hex_: str = "0505", facing: str = "A", enemy_hex: str = "0503", **rules):
    """``a`` at 0505 facing A, ``b`` two hexes dead ahead facing it; 16 impulses, cadet form
    (a moving ``a`` starts at 0116 facing B: 16 hexes a turn stay on the map)."""
    doc = scenario([unit("a", own, "blue", hex_, facing, speed),
                    unit("b", enemy, "red", enemy_hex, "D", 0)],
                   rules={"energy": "cadet", **rules})
    doc["impulses_per_turn"] = 16
    return make_battle(doc, seed=0)


def _w(b, mount: str, uid: str = "a") -> int:
    return weapon(b, uid, mount)


def _allocate(b, uid: str = "a", **fields) -> None:
    """One step at an Energy Allocation decision point: ``uid`` gives ``fields`` (arm by mount
    id), every other agent the standing allocation."""
    arm = {_w(b, m, uid): v for m, v in fields.pop("arm", {}).items()}
    b.step({row(b, uid): Orders(arm=arm, **fields)})


def _next_allocation(b) -> None:
    """Run the current turn to its last impulse (the next turn's Energy Allocation)."""
    run_to(b, b.state.turn, 16)


def _allocated(b, uid: str = "a"):
    return of(b, "EnergyAllocated", unit=uid)[-1]


# ---------------------------------------------------------------------- power and movement


@pytest.mark.parametrize("ship, total", [
    ("fed-cadet", 20), ("klingon-cadet", 20), ("romulan-cadet", 18), ("romulan-kr-cadet", 20),
    ("gorn-cadet", 20), ("kzinti-cadet", 19), ("orion-cadet", 17), ("hydran-cadet", 19),
    ("lyran-cadet", 20),
])
def test_b3_line_4_total_power_per_cadet_ship(ship, total):
    b = _battle(own=ship)
    warp, imp, apr = energy.power(b, row(b, "a"))
    assert warp + imp + apr == total == load_ship(ship).total_power
    assert b.state.batteries[row(b, "a")] == 2  # (CTH-DATA §9.1) both batteries charged
    assert b.state.capacitor[row(b, "a")] == 0.0


def test_b3_capacitor_capacity_from_the_ship_sheet():
    assert _battle().state.capacitor_max[0] == 3.0  # Fed cadet: three Ph-1
    assert _battle(own="kzinti-cadet").state.capacitor_max[0] == 3.0  # Ph-1 + four Ph-3 (½)


def test_b3_cadet_acceleration_limit_plus_8():
    b = _battle(speed=4, hex_="0116", facing="B")
    a = row(b, "a")
    assert b.speed_range(a) == list(range(0, 13))
    assert b.speed_blockers(a)[13].startswith("B3.0 cadet acceleration: at most 12")
    with pytest.raises(IllegalOrderError) as err:
        b.validate({a: Orders(speed=13)})
    assert err.value.rule.startswith("B3.0 cadet acceleration")
    b.validate({a: Orders(speed=12)})  # any deceleration too
    b.validate({a: Orders(speed=0)})


def test_b3_line_14_movement_only_from_warp_and_one_impulse_point():
    b = _battle(speed=16, hex_="0116", facing="B")
    a = row(b, "a")
    b.state.boxes[a, Box.WARP] = 10  # APR 2 and batteries 2 cannot pay movement
    assert energy.max_payable_speed(b, a) == 11
    assert "B3.0 movement: warp and 1 impulse point pay at most speed 11" in (
        b.speed_blockers(a)[12])
    assert energy.movement_cost(b, a, 11) == (10, 1)


def test_b3_speed_is_paid_and_a_lost_warp_box_lowers_a_standing_speed():
    b = _battle(speed=12, hex_="0116", facing="B")
    a = row(b, "a")
    b.state.boxes[a, Box.WARP] = 8
    b.step({a: Orders()})  # no speed ordered: the standing speed 12 is more than warp pays
    assert b.state.speed[a] == 9
    assert of(b, "EnergyShortfall", unit="a", item="movement")[0].cost == 3


# ---------------------------------------------------------------------- photon (E4.2)


def test_e4_2_fed_cadet_arming_both_tubes_standing_speed_is_13():
    b = _battle(speed=16, hex_="0116", facing="B")
    assert energy.standing_speed(b, row(b, "a")) == 13  # 12 warp + 1 impulse (CTH-DATA §4.3)


def test_e4_2_photon_arms_2_plus_2_fires_on_the_second_turn_then_holds_for_1():
    b = _battle()
    tube = _w(b, "PHOT-A")
    _allocate(b, arm={"PHOT-A": ARM, "PHOT-B": NONE}, capacitor=0, recharge=0)
    assert (b.state.w_arm_stage[tube], b.state.w_armed[tube]) == (1, False)
    assert b.fire_blockers(tube, [row(b, "b")])[0] == (
        "E4.2 the weapon is not armed (Energy Allocation)")
    assert _allocated(b).used == 2 and _allocated(b).power == 20
    _next_allocation(b)
    assert energy.arm_blockers(b, tube) == {
        2: "E4.2 nothing loaded to hold (arming turn 2 of 2)"}
    _allocate(b, arm={"PHOT-A": ARM, "PHOT-B": NONE}, capacitor=0, recharge=0)
    assert b.state.w_armed[tube] and b.fire_blockers(tube, [row(b, "b")])[0] is None
    _next_allocation(b)  # not fired: hold it (1) or let it go
    assert 1 in energy.arm_blockers(b, tube) and 2 not in energy.arm_blockers(b, tube)
    _allocate(b, arm={"PHOT-A": HOLD, "PHOT-B": NONE}, capacitor=0, recharge=0)
    held = of(b, "WeaponArmed", weapon="a.PHOT-A")[-1]
    assert (held.energy, held.held, held.armed) == (1, True, True)
    _next_allocation(b)
    _allocate(b, arm={"PHOT-A": NONE, "PHOT-B": NONE}, capacitor=0, recharge=0)
    assert not b.state.w_armed[tube] and of(b, "WeaponDischarged", weapon="a.PHOT-A")


def test_e4_2_an_unfinished_photon_cycle_is_lost():
    b = _battle()
    tube = _w(b, "PHOT-A")
    _allocate(b, arm={"PHOT-A": ARM})
    _next_allocation(b)
    _allocate(b, arm={"PHOT-A": NONE})
    assert b.state.w_arm_stage[tube] == 0
    assert of(b, "WeaponDischarged", weapon="a.PHOT-A")[0].reason.startswith("let go")


def test_e4_2_a_fired_photon_starts_a_new_cycle():
    b = _battle()
    tube = _w(b, "PHOT-A")
    _allocate(b, arm={"PHOT-A": ARM})
    _next_allocation(b)
    _allocate(b, arm={"PHOT-A": ARM})
    b.rng = Dice(1)
    b.step({row(b, "a"): Orders(fire={tube: row(b, "b")})})
    assert of(b, "Fired", weapon="a.PHOT-A")[0].damage == 8
    assert not b.state.w_armed[tube] and b.state.w_arm_stage[tube] == 0


def test_e4_2_photon_arming_is_warp_only_and_clamped_after_movement():
    b = _battle(speed=16, hex_="0116", facing="B")
    a = row(b, "a")
    b.step({a: Orders(speed=16, capacitor=0, recharge=0,
                      arm={_w(b, "PHOT-A"): ARM, _w(b, "PHOT-B"): ARM})})
    # 15 warp + 1 impulse move the ship; 1 warp is left, APR and batteries cannot arm photons
    assert b.state.energy_shortfall[a] == 4
    assert [e.item for e in of(b, "EnergyShortfall", unit="a")] == ["arm:a.PHOT-A",
                                                                    "arm:a.PHOT-B"]
    assert not b.state.w_arm_stage[_w(b, "PHOT-A")]


# ---------------------------------------------------------------------- disruptor, fusion


def test_e3_2_disruptor_is_armed_by_2_for_the_turn_it_is_paid_only():
    b = _battle(own="klingon-cadet", enemy="fed-cadet")
    disr = _w(b, "DISR-A")
    assert energy.arm_blockers(b, disr) == {
        2: "E3.2 cannot be held over the turn break: nothing to hold"}
    _allocate(b, arm={"DISR-A": ARM, "DISR-B": NONE}, capacitor=0, recharge=0)
    assert _allocated(b).used == 2
    run_to(b, 1, 1)
    assert b.fire_blockers(disr, [row(b, "b")])[0] is None
    assert b.fire_blockers(_w(b, "DISR-B"), [row(b, "b")])[0] == (
        "E3.2 the weapon is not armed (Energy Allocation)")
    _next_allocation(b)
    _allocate(b, arm={"DISR-A": NONE, "DISR-B": NONE})
    run_to(b, 2, 1)
    assert b.fire_blockers(disr, [row(b, "b")])[0] == (
        "E3.2 the weapon is not armed (Energy Allocation)")


def test_e7_21_fusion_beam_armed_by_energy_allocation_and_cools_after_firing():
    b = _battle(own="hydran-cadet")
    beam = _w(b, "FUS-A")
    _allocate(b, arm={"FUS-A": ARM, "FUS-B": NONE})
    run_to(b, 1, 1)
    assert b.fire_blockers(beam, [row(b, "b")])[0] is None
    assert b.fire_blockers(_w(b, "FUS-B"), [row(b, "b")])[0].startswith("E7.21")
    b.rng = Dice(1)
    b.step({row(b, "a"): Orders(fire={beam: row(b, "b")})})
    _next_allocation(b)
    assert energy.arm_blockers(b, beam)[1].startswith("E7.22")  # cools on the next turn


def test_g23_22_esg_charge_on_the_form_tops_the_generator_up():
    b = _battle(own="lyran-cadet")
    esg = _w(b, "ESG-1")
    assert energy.arm_blockers(b, esg)[1] == "G23.22 the generator is full (2 energy)"  # G23.23
    b.state.esg_stored[esg] = 0
    _allocate(b, arm={"ESG-1": ARM, "DISR-A": NONE, "DISR-B": NONE}, capacitor=0, recharge=0)
    assert b.state.esg_stored[esg] == 2 and _allocated(b).used == 2
    assert of(b, "EsgCharged", generator="a.ESG-1")[0].energy == 2


def test_e11_21_ppd_arms_4_plus_4_on_the_form_then_holds_for_2():
    b = _battle(own="isc-cadet", enemy_hex="0501")  # range 4: the PPD's minimum (E11.312)
    ppd_row = _w(b, "PPD-A")
    others = {"PL-B": NONE, "PL-C": NONE}
    assert energy.arm_blockers(b, ppd_row) == {  # (E11.25) 5: hold and top up
        2: "E11.22 only an armed PPD is held",
        5: "E11.25 only an armed PPD held for a turn is topped up"}
    _allocate(b, arm={"PPD-A": ARM, **others}, capacitor=0, recharge=0)
    assert _allocated(b).used == 4 and not b.state.w_armed[ppd_row]
    _next_allocation(b)
    _allocate(b, arm={"PPD-A": ARM, **others}, capacitor=0, recharge=0)
    assert b.state.w_armed[ppd_row] and b.fire_blockers(ppd_row, [row(b, "b")])[0] is None
    _next_allocation(b)
    assert energy.standing_arm(b, ppd_row) == HOLD
    _allocate(b, arm={"PPD-A": HOLD, **others}, capacitor=0, recharge=0)
    held = of(b, "WeaponArmed", weapon="a.PPD-A")[-1]
    assert (held.energy, held.held, held.armed) == (2, True, True)
    _next_allocation(b)
    _allocate(b, arm={"PPD-A": NONE, **others})
    assert not b.state.w_armed[ppd_row] and of(b, "WeaponDischarged", weapon="a.PPD-A")


# ---------------------------------------------------------------------- plasma (FP1.22, FP2.0)


def _plasma_cycle(b, mount: str, orders: list[int]) -> list[tuple[int, bool, int]]:
    """(stage, armed, energy paid) after each turn's allocation of ``orders``."""
    out = []
    w = _w(b, mount)
    for i, value in enumerate(orders):
        if i:
            _next_allocation(b)
        _allocate(b, arm={mount: value}, capacitor=0, recharge=0)
        paid = [e for e in of(b, "WeaponArmed", weapon=f"a.{mount}") if e.turn == b.state.turn]
        out.append((int(b.state.w_arm_stage[w]), bool(b.state.w_armed[w]),
                    paid[0].energy if paid else 0))
    return out


def test_fp1_23_no_plasma_torpedo_armed_at_the_start():
    b = _battle(own="romulan-cadet")
    assert not b.state.w_armed[_w(b, "PL-A")]


def test_fp1_22_plasma_s_arms_2_2_4_then_holds_for_2():
    b = _battle(own="romulan-cadet")
    assert _plasma_cycle(b, "PL-A", [ARM, ARM, ARM, HOLD]) == [
        (1, False, 2), (2, False, 2), (3, True, 4), (3, True, 2)]


def test_fp1_22_plasma_s_rolling_delay_keeps_the_last_arming_turn():
    b = _battle(own="romulan-cadet")
    assert _plasma_cycle(b, "PL-A", [ARM, ARM, HOLD, HOLD, ARM]) == [
        (1, False, 2), (2, False, 2), (2, False, 2), (2, False, 2), (3, True, 4)]
    assert of(b, "WeaponArmed", weapon="a.PL-A", rolled=True)


def test_fp2_0_plasma_f_arms_1_1_3_and_holds_for_1():
    b = _battle(own="gorn-cadet")
    assert _plasma_cycle(b, "PL-A", [ARM, ARM, ARM, HOLD]) == [
        (1, False, 1), (2, False, 1), (3, True, 3), (3, True, 1)]
    _next_allocation(b)
    assert energy.arm_blockers(b, _w(b, "PL-A")) == {
        1: "FP2.0 the weapon is loaded: hold it (2) or let it go (0)"}


def test_fp2_0_plasma_r_arms_2_2_5_and_cannot_be_held():
    b = _battle(own="romulan-war-eagle")
    assert _plasma_cycle(b, "PL-A", [ARM, ARM, ARM]) == [
        (1, False, 2), (2, False, 2), (3, True, 5)]
    _next_allocation(b)
    blocked = energy.arm_blockers(b, _w(b, "PL-A"))
    assert blocked[2] == "FP2.0 a plasma-R torpedo cannot be held: launch it or lose it"
    assert energy.standing_arm(b, _w(b, "PL-A")) == NONE
    _allocate(b)
    assert not b.state.w_armed[_w(b, "PL-A")]
    assert of(b, "WeaponDischarged", weapon="a.PL-A")


# ---------------------------------------------------------------------- capacitor (H6)


@pytest.mark.parametrize("ship, mount, draw, enemy_hex", [
    ("fed-cadet", "PH1-1", 1.0, "0503"), ("klingon-cadet", "PH2-1", 1.0, "0503"),
    ("kzinti-cadet", "PH3-2", 0.5, "0503"), ("hydran-cadet", "PHG-4", 0.25, "0507"),
])
def test_h6_1_each_phaser_shot_draws_its_cost_from_the_capacitor(ship, mount, draw, enemy_hex):
    b = _battle(own=ship, enemy_hex=enemy_hex)
    a = row(b, "a")
    _allocate(b, capacitor=1)
    assert b.state.capacitor[a] == 1.0
    run_to(b, 1, 1)
    b.rng = Dice(6)
    b.step({a: Orders(fire={_w(b, mount): row(b, "b")})})
    assert of(b, "Fired", weapon=f"a.{mount}")
    assert b.state.capacitor[a] == pytest.approx(1.0 - draw)


def test_h6_1_no_phaser_fires_without_capacitor_energy():
    b = _battle()
    _allocate(b, capacitor=0)
    run_to(b, 1, 1)
    assert b.fire_blockers(_w(b, "PH1-1"), [row(b, "b")])[0] == (
        "H6.1 the phaser capacitor holds 0 energy; a shot needs 1")


def test_h6_1_phasers_of_one_volley_share_the_capacitor():
    b = _battle()
    a = row(b, "a")
    _allocate(b, capacitor=1)
    run_to(b, 1, 1)
    b.rng = Dice(6)
    # each mask entry is judged alone: both are open, the second finds the capacitor empty
    b.step({a: Orders(fire={_w(b, "PH1-1"): row(b, "b"), _w(b, "PH1-2"): row(b, "b")})})
    assert len(of(b, "Fired", unit="a")) == 1
    assert of(b, "FireUnpowered", weapon="a.PH1-2")


def test_h6_2_capacitor_energy_carries_over_and_fills_only_to_capacity():
    b = _battle()
    a = row(b, "a")
    _allocate(b, capacitor=3)
    _next_allocation(b)
    assert energy.capacitor_blockers(b, a) == {
        1: "H6.1 the phaser capacitor has room for 0 energy",
        2: "H6.1 the phaser capacitor has room for 0 energy",
        3: "H6.1 the phaser capacitor has room for 0 energy"}
    _allocate(b)
    assert b.state.capacitor[a] == 3.0


# ---------------------------------------------------------------------- batteries


def test_b3_line_21_batteries_cover_the_excess_and_line_16_recharges_them():
    b = _battle(own="romulan-cadet", speed=16, hex_="0116", facing="B")
    a = row(b, "a")
    # 16 movement + 2 plasma + 2 capacitor = 20 > 18 power: the batteries give 2
    b.step({a: Orders(speed=16, arm={_w(b, "PL-A"): ARM}, capacitor=2, recharge=0)})
    assert (_allocated(b).batteries_used, b.state.batteries[a]) == (2, 0)
    assert b.state.energy_shortfall[a] == 0
    _next_allocation(b)
    assert energy.recharge_blockers(b, a) == {}
    b.step({a: Orders(speed=8, arm={_w(b, "PL-A"): ARM}, capacitor=0, recharge=2)})
    assert (_allocated(b).recharged, b.state.batteries[a]) == (2, 2)


def test_b3_destroyed_batteries_are_the_empty_ones_first():
    b = _battle()
    a = row(b, "a")
    b.state.batteries[a] = 1
    b.state.boxes[a, Box.BATTERY] = 1  # one destroyed: the empty one
    _allocate(b, capacitor=0, recharge=0)
    assert b.state.batteries[a] == 1
    b.state.boxes[a, Box.BATTERY] = 0
    _next_allocation(b)
    _allocate(b, capacitor=0, recharge=0)
    assert b.state.batteries[a] == 0


# ---------------------------------------------------------------------- clamp and cloak


def test_b3_clamp_priority_arming_before_capacitor_shortfall_reported():
    b = _battle(own="klingon-cadet", enemy="fed-cadet", speed=16, hex_="0116", facing="B")
    a = row(b, "a")
    # 15 warp + 1 impulse move; left 1 warp, 1 impulse, 2 APR and 2 batteries = 6 for
    # two disruptors (4, priority 4) and a capacitor of 4 (priority 7): 2 points short
    b.step({a: Orders(speed=16, capacitor=4, recharge=0,
                      arm={_w(b, "DISR-A"): ARM, _w(b, "DISR-B"): ARM})})
    assert b.state.w_armed[_w(b, "DISR-A")] and b.state.w_armed[_w(b, "DISR-B")]
    assert b.state.capacitor[a] == 2.0
    assert b.state.energy_shortfall[a] == 2
    assert [(e.item, e.cost) for e in of(b, "EnergyShortfall", unit="a")] == [("capacitor", 2)]


def test_g13_cadet_cloak_costs_6_and_sets_the_flags_for_the_turn():
    b = _battle(own="romulan-cadet", cloak="cadet")
    a = row(b, "a")
    _allocate(b, cloak=True, capacitor=0, recharge=0, arm={"PL-A": NONE})
    assert b.state.cloaked[a] and not b.state.cloaked_before[a]
    assert _allocated(b).used == 6
    _next_allocation(b)
    _allocate(b, cloak=False)
    assert not b.state.cloaked[a] and b.state.cloaked_before[a]


def test_g13_kr_cadet_cloak_costs_8():
    b = _battle(own="romulan-kr-cadet", cloak="cadet")
    _allocate(b, cloak=True, capacitor=0, recharge=0, arm={"PL-A": NONE})
    assert _allocated(b).used == 8


def test_g13_cloak_only_with_a_device_and_the_scenario_rule():
    b = _battle(cloak="cadet")
    assert energy.cloak_blockers(b, row(b, "a")) == {1: "G13.0 the ship has no cloaking device"}
    b = _battle(own="romulan-cadet")
    with pytest.raises(IllegalOrderError) as err:
        b.validate({row(b, "a"): Orders(cloak=True)})
    assert err.value.rule == "G13.0 cloaking devices are not in use in this scenario (rules.cloak)"


# ---------------------------------------------------------------------- illegal orders


@pytest.mark.parametrize("build, make, rule", [
    (lambda: _battle(own="klingon-cadet"), lambda b: Orders(arm={_w(b, "DISR-A"): HOLD}),
     "E3.2 cannot be held over the turn break: nothing to hold"),
    (lambda: _battle(), lambda b: Orders(arm={_w(b, "PH1-1"): ARM}),
     "B3.0 line 10: weapon a.PH1-1 of a takes no arming energy"),
    (lambda: _battle(), lambda b: Orders(arm={_w(b, "PHOT-A"): 3}),
     "B3.0 arm orders are 0 none, 1 arm, 2 hold"),
    (lambda: _battle(), lambda b: Orders(capacitor=4), "B3.0 capacitor is 0..3"),
    (lambda: _battle(), lambda b: Orders(recharge=1), "B3.0 line 16: 0 batteries are empty"),
])
def test_b3_illegal_energy_orders_raise_naming_the_rule(build, make, rule):
    b = build()
    with pytest.raises(IllegalOrderError) as err:
        b.validate({row(b, "a"): make(b)})
    assert err.value.rule == rule


def test_d4_arming_a_destroyed_weapon_is_illegal():
    b = _battle()
    b.state.w_destroyed[_w(b, "PHOT-A")] = True
    with pytest.raises(IllegalOrderError, match="D4.0 the weapon is destroyed"):
        b.validate({row(b, "a"): Orders(arm={_w(b, "PHOT-A"): ARM})})


def test_b3_energy_orders_only_at_energy_allocation():
    b = _battle()
    run_to(b, 1, 3)
    with pytest.raises(IllegalOrderError) as err:
        b.validate({row(b, "a"): Orders(arm={_w(b, "PHOT-A"): ARM})})
    assert err.value.rule == energy.NOT_NOW


def test_b3_energy_orders_refused_under_the_chief_engineer():
    b = make_battle("duel-federation-vs-kzinti", seed=0)
    with pytest.raises(IllegalOrderError, match="has no Energy Allocation"):
        b.validate({0: Orders(capacitor=1)})


# ---------------------------------------------------------------------- scenario rule, exemptions


def test_b3_energy_rule_and_chief_engineer_are_one_setting():
    def rules(**r):
        return load_scenario(scenario([unit("a", "fed-cadet", "blue", "0505", "A")],
                                      rules=r)).rules
    assert (rules().energy, rules().chief_engineer) == ("chief", True)
    assert rules(energy="cadet").chief_engineer is False
    assert rules(chief_engineer=False).energy == "off"
    with pytest.raises(ScenarioError, match="rules.chief_engineer"):
        rules(energy="cadet", chief_engineer=True)
    with pytest.raises(ScenarioError, match="rules.energy"):
        rules(energy="full")


def test_b3_chief_engineer_path_unchanged():
    b = make_battle("duel-federation-vs-kzinti", seed=0)
    assert not b.rules.energy_form and not energy.governed(b, 0)
    run_to(b, 1, 1)
    assert b.fire_blockers(_w(b, "PH1-1", "fed-cadet"), [1])[0] in (
        None, "D2.1 the target is outside the weapon's firing arc",
        "E2.4 range 14 is beyond the maximum range 75")  # no capacitor bookkeeping
    assert not of(b, "EnergyAllocated")


def test_scenario_2_5_robot_ships_are_exempt_from_the_form():
    doc = scenario([unit("a", "fed-cadet", "blue", "0505", "A"),
                    unit("b", "klingon-cadet", "red", "0503", "D", controller="robot-ship")],
                   rules={"energy": "cadet"})
    doc["impulses_per_turn"] = 16
    b = make_battle(doc, seed=0)
    assert energy.governed(b, row(b, "a")) and not energy.governed(b, row(b, "b"))
    assert b.state.w_armed[_w(b, "DISR-A", "b")]
    b.step({row(b, "a"): Orders()})
    assert not of(b, "EnergyAllocated", unit="b")


# ------------------------------------------------------------- env: spaces, infos, captains


def _energy_env(enemy: str = "romulan-cadet", **kw):
    from test_env_masks import energy_duel

    import sfb_env

    doc = energy_duel()
    doc["units"][1]["class"] = enemy
    return sfb_env.parallel_env(doc, **kw)


def test_b3_energy_components_only_under_the_energy_rule():
    env = _energy_env()
    env.reset(seed=0)
    assert env._layouts["fed-cadet"].component_names()[-6:] == [
        "arm[0]", "arm[1]", "capacitor", "recharge", "maneuver", "speed"]
    assert env._layouts["kzinti-cadet"].component_names()[-5:] == [
        "capacitor", "recharge", "cloak", "maneuver", "speed"]
    import sfb_env

    chief = sfb_env.parallel_env("duel-federation-vs-kzinti")
    assert not any(n.startswith(("arm", "capacitor")) for n in
                   chief._layouts["fed-cadet"].component_names())


def test_b3_noop_is_the_standing_allocation_and_shortfall_is_in_infos():
    env = _energy_env(enemy="klingon-cadet")
    obs, infos = env.reset(seed=0)
    assert infos["fed-cadet"]["energy_shortfall"] == 0
    layout = env._layouts["fed-cadet"]
    noop = layout.noop(env.battle)
    names = layout.component_names()
    assert {n: int(v) for n, v in zip(names, noop, strict=True) if n in (
        "arm[0]", "arm[1]", "capacitor", "recharge", "speed")} == {
        "arm[0]": ARM, "arm[1]": ARM, "capacitor": 3, "recharge": 0, "speed": 8}
    action = noop.copy()
    action[names.index("speed")] = 16  # 15 warp + 1 impulse: no warp left for the photons
    obs, _, _, _, infos = env.step({"fed-cadet": action})
    assert infos["fed-cadet"]["energy_shortfall"] == 4


def test_b3_observation_energy_block_at_the_end():
    env = _energy_env(enemy="klingon-cadet")
    obs, _ = env.reset(seed=0)
    env.step({})
    from observation_helpers import placement, span

    vector = env.observe("kzinti-cadet")["observation"]
    assert placement(env, "kzinti-cadet").span("energy").stop == len(vector)  # at the end
    block = span(env, "kzinti-cadet", vector, "energy")  # a Klingon: 6 + 2 disruptors x 2
    assert list(block) == pytest.approx([1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0])


def test_b3_doctrine_captains_fly_the_energy_duel_legally_and_fire():
    import agents
    from agents import bench
    from agents.base import bind_policy

    env = _energy_env(enemy="klingon-cadet")
    obs, _ = env.reset(seed=1)
    captains = {a: agents.get("doctrine") for a in env.possible_agents}
    for a, c in captains.items():
        bind_policy(c, env, a)
        c.reset(1)
    while env.agents and env.battle.state.turn <= 3:
        actions = {}
        for a in env.agents:
            actions[a] = captains[a].act(obs[a], env.action_space(a))
            bench.check_action("doctrine", a, env, actions[a], obs[a]["action_mask"])
        obs, *_ = env.step(actions)
    assert of(env.battle, "Fired")
    assert not of(env.battle, "EnergyShortfall")


def test_b3_uniform_spaces_pad_the_energy_components():
    env = _energy_env(uniform_spaces=True)
    env.reset(seed=0)
    assert list(env.action_space("fed-cadet").nvec) == list(env.action_space("kzinti-cadet").nvec)
    reasons = env.mask_reasons("kzinti-cadet")  # a Romulan: capacitor 2, one plasma launcher
    assert reasons["capacitor"][3] == "uniform_spaces padding: beyond this ship's capacitor values"
    assert reasons["arm[1]"][1].startswith("uniform_spaces padding")
    assert env.mask_reasons("fed-cadet")["cloak"] == {1: "G13.0 the ship has no cloaking device"}
