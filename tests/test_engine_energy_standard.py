"""The standard Energy Allocation Form (``energy: standard``, B3.0 standard, CTH-DATA §7.1-§7.6)
and the scenario-10 rules in play: shield reinforcement (D3.34), damage control (D9.2), reserve
power (H7), with the worked examples of D3.343, D9.2 and H7.3, and Klingon mutiny (G6)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from engine_helpers import (
    Dice,
    advance_masked,
    bare_orders,
    of,
    row,
    run_to,
    scenario,
    standard_battle,
    standard_duel,
    unit,
    weapon,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sfb_env
from sfb_env.data.ships import load_ship
from sfb_env.engine import (
    Battle,
    IllegalOrderError,
    Orders,
    boarding,
    dac,
    energy,
    make_battle,
    mutiny,
    victory,
)
from sfb_env.engine.types import Box, Status

R10 = {"reinforcement": True, "damage_control": True, "reserve_power": True}


std, duel, bare = standard_battle, standard_duel, bare_orders



def allocated(b, uid: str):
    return [e for e in b.events if e.kind == "EnergyAllocated" and e.unit == uid][-1]


# ----------------------------------------------------------------------------- the form


def test_b3_standard_form_pays_life_support_fire_control_and_shields():
    b = duel()
    u = row(b, "fed")
    b.step({u: bare(b, u, speed=10)})
    # movement 9 warp + 1 impulse point, life support 1, fire control 1, shields 2 (§7.1)
    assert allocated(b, "fed").used == 10 + 4
    assert not of(b, "EnergyShortfall")
    assert b.state.shields_active[u] and b.state.fire_control[u]


def test_b3_standard_unpaid_shields_are_ignored_and_unpaid_fire_control_blocks_fire():
    b = duel()
    u, st_ = row(b, "fed"), b.state
    st_.boxes[u, Box.WARP] = st_.boxes[u, Box.APR] = st_.boxes[u, Box.BATTERY] = 0
    st_.boxes[u, Box.IMPULSE] = 1
    b.step({u: bare(b, u)})  # 1 energy: life support only
    assert [e.item for e in of(b, "EnergyShortfall", unit="fed")] == ["fire control", "shields"]
    assert not st_.shields_active[u] and not st_.fire_control[u]
    b.apply_damage(u, 1, 5)  # (CTH-DATA §7.4) shields unpaid: every point goes past them
    assert st_.shields[u, 0] == 30 and st_.internal[u] == 5
    ph = weapon(b, "fed", "PH1-1")
    rule = b.fire_blockers(ph, [row(b, "d7")])[0]
    assert rule.startswith("B3.0 line 8: fire control was not paid")
    with pytest.raises(IllegalOrderError) as err:
        b.validate({u: Orders(fire={ph: row(b, "d7")})})
    assert err.value.rule == rule


@pytest.mark.parametrize("previous, top", [(3, 13), (12, 24), (20, 31), (0, 10)])
def test_b3_standard_acceleration_double_or_plus_10(previous, top):
    b = std([unit("fed", "fed-ca", "blue", "1010", "A", previous)])
    closed = b.speed_blockers(row(b, "fed"))
    assert min(closed, default=32) == top + 1 if top < 31 else not closed
    if top < 31:
        assert closed[top + 1].startswith("B3.0 standard acceleration")


def test_c2_orion_raider_move_cost_two_thirds_matches_its_ssd_table():
    b = std([unit("orion", "orion-raider", "blue", "1010", "A", 20)])
    u = row(b, "orion")
    # the SSD's movement table (CTH-DATA §7.3): warp energy for speeds 1..30
    table = [1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8, 8, 9, 10, 10, 11, 12, 12, 13, 14, 14, 15, 16, 16,
             17, 18, 18, 19, 20, 20]
    assert load_ship("orion-raider").move_cost == Fraction(2, 3)
    for n in range(1, 31):  # n hexes on warp (the SSD table) + 1 hex on the impulse point
        assert energy.movement_cost(b, u, n + 1) == (table[n - 1], 1)
    # anchor (CTH-DATA §7.3): 10 warp buy 15 hexes, + 1 impulse point = 16
    assert energy.movement_cost(b, u, 16) == (10, 1)


def test_scenario_12_cadet_ship_among_full_size_ships_costs():
    b = std([unit("cadet", "fed-cadet", "blue", "1010", "A", 20),
             unit("d7", "klingon-d7", "red", "1007", "D", 0, controller="idle")])
    u = row(b, "cadet")
    assert energy.cadet_among_full(b, u)
    assert energy.system_costs(b, u) == (("shields", 1),)  # no life support, fire control
    b.step({u: bare(b, u, speed=21)})
    # move cost 1/2: 20 hexes on warp = 10, + 1 impulse point; shields 1 (SCENARIOS #12)
    assert allocated(b, "cadet").used == 10 + 1 + 1
    assert b.state.dac_boxes[u].sum() == 0  # (SCENARIOS #12) the cadet DAC, not the 2d6 one
    b.state.shields[u, 0] = 0
    b.apply_damage(u, 1, 3)
    hit = of(b, "Damaged", unit="cadet")[-1].boxes
    assert len(hit) == 3 and all(h in ("hull", "impulse", "warp", "lab", "shuttle", "transporter",
                                       "other", "battery", "apr", "excess") or "." in h
                                 for h in hit)


def test_r10_rules_need_the_standard_form():
    doc = scenario([unit("fed", "fed-ca", "blue", "1010", "A")],
                   rules={"energy": "cadet", "reinforcement": True})
    with pytest.raises(sfb_env.engine.ScenarioError, match="rules.reinforcement"):
        make_battle(doc)


# ----------------------------------------------------------------------------- reinforcement


def test_d3_343_reinforcement_example_in_play_1_general_10_specific_4_on_the_shield():
    b = duel(reinforcement=True)
    u, s = row(b, "fed"), b.state
    s.shields[u, 0] = 20  # the example's front shield of 20 boxes
    b.step({u: bare(b, u, reinforce={1: 10}, reinforce_general=3)})  # 6 energy = 3 GR
    assert (s.reinf_general[u], s.reinf_specific[u, 0]) == (3, 10)
    assert allocated(b, "fed").used == 4 + 10 + 6
    b.apply_damage(u, 3, 2)  # 2 points on another shield: 2 of the 3 GR
    assert s.reinf_general[u] == 1 and s.shields[u, 2] == 20
    b.apply_damage(u, 1, 15)  # 1 GR, 10 specific, 4 on the shield
    assert s.shields[u, 0] == 16 and s.internal[u] == 0
    assert (s.reinf_general[u], s.reinf_specific[u, 0]) == (0, 0)


def test_d3_341_reinforcement_vanishes_at_the_end_of_the_turn():
    b = duel(reinforcement=True)
    u, s = row(b, "fed"), b.state
    b.step({u: bare(b, u, reinforce={2: 4}, reinforce_general=2)})
    assert s.reinf_general[u] == 2 and s.reinf_specific[u, 1] == 4
    run_to(b, 2, 1)
    assert s.reinf_general[u] == 0 and not s.reinf_specific[u].any()


def test_d3_343_no_specific_reinforcement_on_a_down_shield_mask_and_engine_agree():
    env = sfb_env.parallel_env("cth-10")
    env.reset(seed=0)
    agent = env.agents[0]
    b, u = env.battle, env._layouts[agent].unit
    b.state.shields[u, 1] = 0  # shield #2 down
    reasons = env.mask_reasons(agent)
    assert set(reasons["reinforce[1]"]) == set(range(1, energy.REINFORCE_SPECIFIC_MAX + 1))
    assert reasons["reinforce[1]"][1].startswith("D3.343")
    assert not reasons["reinforce[0]"]
    with pytest.raises(IllegalOrderError) as err:
        b.validate({u: Orders(speed=20, reinforce={2: 1})})
    assert err.value.rule == reasons["reinforce[1]"][1]
    b.validate({u: Orders(speed=20, reinforce={1: 10}, reinforce_general=10)})  # open: accepted


def test_d3_34_reinforcement_closed_between_energy_allocations():
    b = duel(reinforcement=True)
    u = row(b, "fed")
    b.step({u: bare(b, u)})
    assert energy.reinforce_general_blockers(b, u)[1] == energy.NOT_NOW
    with pytest.raises(IllegalOrderError, match="B3.0 energy is allocated only"):
        b.validate({u: Orders(reinforce={1: 1})})


# ----------------------------------------------------------------------------- damage control


def test_d9_2_damage_control_example_in_play_4_energy_repair_2_boxes():
    b = duel(damage_control=True)
    u, s = row(b, "fed"), b.state
    assert set(energy.repair_blockers(b, u)) == set(range(1, 7))  # nothing lost yet
    b.step({u: bare(b, u)})
    b.apply_damage(u, 1, 4)  # turn 1: four boxes of shield #1
    assert s.shields[u, 0] == 26
    run_to(b, 1, 32)  # the allocation for turn 2
    closed = energy.repair_blockers(b, u)
    assert 1 not in closed and closed[2].startswith("D9.2 shield #2 lost no box")
    assert energy.dc_rating(b, u) == 4 and energy.repair_energy(b, u, 1) == 4
    b.step({u: bare(b, u, repair=1)})
    assert tuple(s.dc_repairs[u]) == (2, 0, 0, 0, 0, 0)
    assert allocated(b, "fed").used == 4 + 4
    assert s.shields[u, 0] == 26  # repaired at the end of the turn, not before
    run_to(b, 2, 32)
    b.step({u: bare(b, u)})
    assert s.shields[u, 0] == 28 and of(b, "ShieldsRepaired", unit="fed")
    assert not s.dc_repairs[u].any()


def test_d9_2_repair_refused_without_earlier_damage_with_the_mask_rule():
    b = duel(damage_control=True)
    u = row(b, "fed")
    rule = energy.repair_blockers(b, u)[3]
    with pytest.raises(IllegalOrderError) as err:
        b.validate({u: bare(b, u, repair=3)})
    assert err.value.rule == rule and rule.startswith("D9.2")


def _short_of_power(b, u: int, apr: int = 2) -> None:
    """Ship power (line 4) cut to 4 impulse + ``apr`` APR: the standard systems (4) leave
    ``apr``; the four batteries stay charged."""
    s = b.state
    s.boxes[u, Box.WARP], s.boxes[u, Box.IMPULSE], s.boxes[u, Box.APR] = 0, 4, apr
    s.batteries[u] = 4


def test_d9_2_damage_control_is_not_paid_from_batteries():
    """D9.2 "Energy from reserve power (H7.0) cannot be allocated to damage control": ship
    power 2 short of the 4 the repair costs, 4 batteries charged: the repair goes unpaid, the
    batteries are not touched (before the fix they paid the 2 missing)."""
    b = duel(damage_control=True)
    u, s = row(b, "fed"), b.state
    b.step({u: bare(b, u)})
    b.apply_damage(u, 1, 4)  # turn 1: four boxes of shield #1
    run_to(b, 1, 32)
    _short_of_power(b, u, apr=4)  # line 4 = 8: systems 4, 4 left for the repair alone
    b.step({u: bare(b, u, repair=1)})
    assert tuple(s.dc_repairs[u]) == (2, 0, 0, 0, 0, 0)  # ship power pays it in full
    assert allocated(b, "fed").batteries_used == 0
    run_to(b, 2, 32)
    _short_of_power(b, u, apr=2)  # line 4 = 6: systems 4, 2 of the 4 left
    assert energy.repair_energy(b, u, 1) == 4  # (D9.2) rating 4: two more boxes
    b.step({u: bare(b, u, repair=1)})
    assert not s.dc_repairs[u].any()
    assert [e.cost for e in of(b, "EnergyShortfall", unit="fed", turn=3)] == [4]
    assert of(b, "EnergyShortfall", unit="fed", turn=3)[0].item == "repair:#1"
    assert s.batteries[u] == 4 and allocated(b, "fed").batteries_used == 0


def test_d9_2_repair_mask_and_validation_count_ship_power_only():
    """D9.2: the ``repair`` value the ship can pay only with batteries is closed, in the mask
    and in validation, naming D9.2; ship power (line 4) 3, 4 batteries, repair costs 4."""
    b = duel(damage_control=True)
    u, s = row(b, "fed"), b.state
    b.step({u: bare(b, u)})
    b.apply_damage(u, 1, 4)
    run_to(b, 1, 32)
    s.boxes[u, Box.WARP], s.boxes[u, Box.IMPULSE], s.boxes[u, Box.APR] = 0, 2, 1
    s.batteries[u] = 4
    assert energy.reach(b, u) == 7  # line 4 + line 5: what the other items may draw on
    rule = energy.repair_blockers(b, u)[1]
    assert rule.startswith("D9.2 reserve power (batteries) cannot pay damage control")
    with pytest.raises(IllegalOrderError) as err:
        b.validate({u: bare(b, u, repair=1)})
    assert err.value.rule == rule
    s.boxes[u, Box.APR] = 2  # line 4 = 4: open again
    assert 1 not in energy.repair_blockers(b, u)
    b.validate({u: bare(b, u, repair=1)})


def test_h7_2_general_reinforcement_is_not_paid_from_batteries_specific_is():
    """H7.2 "Power from batteries may be used to reinforce a specific shield" (general
    reinforcement is not among the uses; D3.341 2 energy a point): with 2 ship power left after
    the systems and 4 batteries, 3 GR points ordered buy 1 (2 energy), the 4 missing are a
    shortfall and no battery pays them; specific reinforcement still draws on batteries."""
    b = duel(reinforcement=True)
    u, s = row(b, "fed"), b.state
    _short_of_power(b, u, apr=2)  # line 4 = 6: systems 4, 2 left
    b.step({u: bare(b, u, reinforce_general=3)})
    assert s.reinf_general[u] == 1
    assert [(e.item, e.cost) for e in of(b, "EnergyShortfall", unit="fed")] == [
        ("reinforce_general", 4)]
    assert s.batteries[u] == 4 and allocated(b, "fed").batteries_used == 0
    run_to(b, 1, 32)
    _short_of_power(b, u, apr=2)
    b.step({u: bare(b, u, reinforce={1: 4})})  # (H7.2) specific: 2 ship power + 2 batteries
    assert s.reinf_specific[u, 0] == 4
    assert allocated(b, "fed").batteries_used == 2 and s.batteries[u] == 2


def test_h7_2_general_reinforcement_mask_counts_ship_power_only():
    """H7.2: ``reinforce_general`` values only batteries could pay are closed (mask and
    validation, one rule); the same energy as specific reinforcement stays open."""
    b = duel(reinforcement=True)
    u, s = row(b, "fed"), b.state
    s.boxes[u, Box.WARP], s.boxes[u, Box.IMPULSE], s.boxes[u, Box.APR] = 0, 4, 2
    s.batteries[u] = 4  # line 4 = 6, line 5 = 4
    closed = energy.reinforce_general_blockers(b, u)
    assert set(closed) == set(range(4, energy.REINFORCE_GENERAL_MAX + 1))  # 3 points = 6
    assert closed[4].startswith("H7.2 reserve power (batteries) cannot pay general "
                                "reinforcement: 8 energy")
    with pytest.raises(IllegalOrderError) as err:
        b.validate({u: bare(b, u, reinforce_general=4)})
    assert err.value.rule == closed[4]
    assert not energy.reinforce_blockers(b, u, 1)  # 10 specific: 6 + 4 batteries
    b.validate({u: bare(b, u, reinforce_general=3, reinforce={1: 10})})


# ----------------------------------------------------------------------------- reserve power


def test_h7_3_reserve_power_example_in_play_two_phasers_then_reinforce_shield_1():
    b = duel(reinforcement=True, reserve_power=True)
    u, s, d7 = row(b, "fed"), b.state, row(b, "d7")
    assert s.batteries[u] == 4  # four batteries of one each, charged
    b.step({u: bare(b, u, reinforce={1: 2})})  # nothing into the capacitor
    assert s.capacitor[u] == 0 and s.batteries[u] == 4
    ph = [weapon(b, "fed", "PH1-1"), weapon(b, "fed", "PH1-2")]
    assert b.fire_blockers(ph[0], [d7]) == [None]  # (H7.2) batteries may fire it
    b.step({u: Orders(fire={w: d7 for w in ph})})
    assert s.batteries[u] == 2
    assert [e.use for e in of(b, "ReserveDischarged", unit="fed")] == [
        "fire:fed.PH1-1", "fire:fed.PH1-2"]
    b.apply_damage(u, 1, 4)  # 2 stopped by the specific reinforcement, 2 by reserve power
    assert s.shields[u, 0] == 30 and s.internal[u] == 0 and s.batteries[u] == 0
    assert of(b, "ReserveDischarged", unit="fed", use="reinforce:#1", energy=2)


def test_h7_2_without_reserve_power_an_empty_capacitor_blocks_the_phaser():
    b = duel()
    u, d7 = row(b, "fed"), row(b, "d7")
    b.step({u: bare(b, u)})
    ph = weapon(b, "fed", "PH1-1")
    assert b.fire_blockers(ph, [d7])[0].startswith("H6.1")
    b.state.capacitor[u] = 0
    # the same ship with reserve power, batteries gone
    b = Battle.from_parts(replace(b.setup, rules=replace(b.rules, reserve_power=True)), b.state)
    b.state.batteries[u] = 0
    assert b.fire_blockers(ph, [d7])[0].startswith("H7.2")


# ----------------------------------------------------------------------------- masks both ways


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["cth-10", "cth-12"]), seed=st.integers(0, 1000),
       steps=st.sampled_from([0, 1, 31, 32, 33]), hits=st.lists(st.integers(0, 5), max_size=6),
       pick=st.integers(0, 10_000))
def test_r10_energy_components_masks_and_engine_agree_both_ways(name, seed, steps, hits, pick):
    env = sfb_env.parallel_env(name)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    if advance_masked(env, obs, rng, steps) is None:
        return
    agent = env.agents[0]
    layout, b = env._layouts[agent], env.battle
    for k in hits:  # shields lost earlier: damage control and D3.343 come into play
        b.state.shields[layout.unit, k] = max(0, int(b.state.shields[layout.unit, k]) - 9)
    reasons = env.mask_reasons(agent)
    names = layout.component_names()
    mask = layout.mask(b, env._slots[agent])
    parts = np.split(mask, np.cumsum(layout.nvec)[:-1])
    energy_names = [n for n in names if n.startswith(("reinforce", "repair"))]
    assert energy_names
    choices = [(names.index(n), v) for n in energy_names
               for v in range(len(parts[names.index(n)]))]
    i, v = choices[pick % len(choices)]
    assert set(reasons[names[i]]) == {int(x) for x in np.flatnonzero(parts[i] == 0)}
    action = layout.noop(b)
    action[i] = v
    orders = layout.to_orders(b, action, env._slots[agent])
    if parts[i][v]:
        b.validate({layout.unit: orders})  # allowed: accepted
    else:
        with pytest.raises(IllegalOrderError) as err:
            b.validate({layout.unit: orders})
        assert err.value.rule == reasons[names[i]][v]


# ----------------------------------------------------------------------------- mutiny (G6)


def klingon_without_security(seed: int = 0):
    b = make_battle("cth-10", seed=seed)
    k = row(b, "destruction")
    b.state.dac_boxes[k, dac.DacBox.SECURITY] = 0
    return b, k


def test_g6_2_last_security_station_rolls_at_once_then_at_each_end_of_turn():
    b, k = klingon_without_security()
    b.rng = Dice(2)  # no mutiny
    b.apply_damage(k, 1, 1)  # the volley that took the last station: a die at once
    assert b.state.mutiny[k] == mutiny.ROLLING
    assert [(e.die, e.result) for e in of(b, "Mutiny")] == [(2, "no mutiny")]
    b.rng = Dice(1, 3)  # end of turn: a mutiny, put down (1-3)
    mutiny.end_of_turn(b)
    assert b.state.mutiny[k] == mutiny.PUT_DOWN
    b.rng = Dice()  # (G6.24) put down: no roll on later turns
    mutiny.end_of_turn(b)
    assert len(of(b, "Mutiny")) == 2


def test_g6_33_successful_mutiny_captures_the_only_klingon_ship_and_ends_the_scenario():
    b, k = klingon_without_security()
    b.state.mutiny[k] = mutiny.ROLLING
    b.rng = Dice(1, 4)
    mutiny.end_of_turn(b)
    state = b.state
    fed = b.side_index["federation"]
    # (G6.33) the ship is captured, not destroyed: the Federation holds it (boarding's capture)
    assert state.mutiny[k] == mutiny.CAPTURED and state.status[k] == Status.ACTIVE
    assert state.captured_by[k] == fed and b.controllers[k] == boarding.CAPTURED_CONTROLLER
    assert state.side[k] == b.side_index["klingon"]  # the owner is kept
    assert of(b, "Mutiny", result="captured") and of(b, "Captured", unit="destruction")
    outcome, reason = victory.evaluate(b, False)  # (G6.33) the scenario is over
    assert outcome["klingon"] == {"result": "loss", "level": "captured"}
    assert outcome["federation"] == {"result": "win", "level": "captured"}
    assert reason == "klingon was captured"


def test_g6_33_the_scenario_ends_with_the_ship_captured_at_the_end_of_turn_roll():
    b, k = klingon_without_security()
    b.state.mutiny[k] = mutiny.ROLLING
    run_to(b, 1, 32)
    b.rng = Dice(1, 6)  # the end-of-turn roll (G6.2): a mutiny, successful
    b.step({u: Orders() for u in b.agent_units()})
    assert b.done and b.state.captured_by[k] == b.side_index["federation"]
    assert b.outcome["klingon"]["level"] == "captured"
    assert b.outcome["federation"]["result"] == "win"


def _two_klingons():
    """Scenario 10's rules with a second Klingon D7: the first one's security gone."""
    doc = scenario([unit("k1", "klingon-d7", "klingon", "0216", "B", 8),
                    unit("k2", "klingon-d7", "klingon", "0212", "B", 8),
                    unit("fed", "fed-ca", "federation", "2801", "E", 8)],
                   rules={"energy": "standard", "damage": "standard_dac", "mutiny": True},
                   sides=("klingon", "federation"), victory={"kind": "encounter"})
    doc["impulses_per_turn"] = 32
    b = make_battle(doc, seed=0)
    k = row(b, "k1")
    b.state.dac_boxes[k, dac.DacBox.SECURITY] = 0
    b.state.mutiny[k] = mutiny.ROLLING
    return b, k


def test_g6_34_with_other_klingon_ships_the_enemy_gains_control_and_the_battle_goes_on():
    b, k = _two_klingons()
    run_to(b, 1, 1)
    b.rng = Dice(1, 5)  # a mutiny, successful
    mutiny.roll(b, k)
    assert b.state.captured_by[k] == b.side_index["federation"]  # (G6.34) the winning player
    assert b.controllers[k] == boarding.CAPTURED_CONTROLLER
    assert k not in b.agent_units() and not boarding.commanded(b, k)  # left its player
    assert victory.evaluate(b, False) is None  # k2 still fights: the scenario continues
    # (G6.32) the ship stops at once and cannot move or fire
    assert b.state.speed[k] == 0
    assert all(why is not None for why in b.fire_blockers(weapon(b, "k1", "PH2-1")))
    where = (int(b.state.x[k]), int(b.state.z[k]))
    b.rng = np.random.default_rng(0)
    run_to(b, 2, 1)
    assert (int(b.state.x[k]), int(b.state.z[k])) == where
    assert b.state.status[k] == Status.ACTIVE
    assert b.state.mutiny[k] == mutiny.CAPTURED  # (G6.31) no further rolls
    assert len(of(b, "Mutiny")) == 1


def test_g6_23_all_control_spaces_destroyed_shift_both_dice():
    b, k = klingon_without_security()
    for box in mutiny.CONTROL_SPACES:
        b.state.dac_boxes[k, box] = 0
    b.state.mutiny[k] = mutiny.ROLLING
    b.rng = Dice(2, 3)  # 2 - 1 = 1: a mutiny; 3 + 1 = 4: successful
    mutiny.end_of_turn(b)
    assert b.state.mutiny[k] == mutiny.CAPTURED


def test_g6_mutiny_needs_the_standard_dac():
    doc = scenario([unit("k", "klingon-d7", "red", "1010", "A")],
                   rules={"damage": "cadet_dac", "mutiny": True})
    with pytest.raises(sfb_env.engine.ScenarioError, match="rules.mutiny"):
        make_battle(doc)
