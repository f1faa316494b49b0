"""Scenario 8, Pirate Raid (SCENARIOS #8, §2.9): set-up, the defender arriving on turn 6, the
automatic freighters, no voluntary leaving, the defender's no-fire rule, captures by tractor and
boarding, victory levels, random masked play. PettingZoo's API and seed tests run on it in
``test_env_api.py`` (every listed scenario)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from engine_helpers import row
from fuzz_helpers import assert_fights, fuzz_games

import sfb_env
from sfb_env import hexmap
from sfb_env.data import load_data_file
from sfb_env.engine import IllegalOrderError, Maneuver, Orders, make_battle, movement, tractors
from sfb_env.engine import victory as victory_mod
from sfb_env.engine.scenario import SCENARIO_DIR, ScenarioError
from sfb_env.engine.types import ACTIVE, DESTROYED, DISENGAGED, NOT_ARRIVED

FREIGHTERS = ("freighter-A", "freighter-B", "freighter-C", "freighter-D")


def _doc() -> dict:
    return copy.deepcopy(dict(load_data_file(SCENARIO_DIR / "cth-08.yaml")))


def _hold(b, speed: int | None = 0) -> dict[int, Orders]:
    """The pirate holds still (speed 0 at Energy Allocation); the defender's standing orders."""
    out = {}
    for u in b.agent_units():
        o = Orders()
        if b.unit_ids[u] == "queen-of-diamonds" and b.speed_choice_open():
            o.speed = speed
        if b.unit_ids[u] != "defender" or b.state.status[u] == ACTIVE:
            o.maneuver = Maneuver.STRAIGHT if movement.moves_next(
                b, u, o.speed if b.speed_choice_open() else None) else Maneuver.NONE
        out[u] = o
    return out


def test_scenario_8_setup_positions_speeds_and_forces():
    b = make_battle("cth-08", seed=0)
    sc, st = b.scenario, b.state
    assert sc.impulses_per_turn == 32 and sc.turn_limit == 12
    assert sc.map_name == "A+B+row17"  # (CTH-DATA §1.1 PROPOSAL) rows 01-17
    assert all(getattr(sc.rules, k) for k in ("tractors", "transporters", "boarding", "lock_on"))
    assert sc.rules.energy == "standard" and sc.rules.drone_warhead == 12
    pirate = row(b, "queen-of-diamonds")
    assert (b.label(pirate), int(st.facing[pirate]), int(st.speed[pirate])) == ("0201", 2, 30)
    assert int(st.previous_speed[pirate]) == 30  # prev speed 30
    assert int(st.w_ammo[b.weapons_of(pirate)].sum()) == 8  # two racks, 8 drones
    for uid, hex_ in zip(FREIGHTERS, ("0116", "0117", "0216", "0215"), strict=True):
        f = row(b, uid)
        assert (b.label(f), int(st.facing[f]), int(st.speed[f])) == (hex_, 1, 2)  # heading B
        assert int(st.control_stations[f]) == 2
        assert int(st.boarding_parties[f, b.side_index["defender"]]) == 2
        assert not b.may_leave[f]
    d = row(b, "defender")
    assert int(st.status[d]) == NOT_ARRIVED and b.label(d) == "2817"
    assert hexmap.DIRECTION_LETTERS[int(st.facing[d])] == "F" and int(st.speed[d]) == 30
    assert int(b.tractor_beams[pirate]) == 2 and int(b.tractor_beams[d]) == 2


def test_scenario_8_defender_enters_at_2817_f_on_impulse_1_of_turn_6():
    b = make_battle("cth-08", seed=1)
    d = row(b, "defender")
    while not (b.state.turn == 6 and b.state.impulse == 1):
        assert int(b.state.status[d]) == NOT_ARRIVED
        b.step(_hold(b))
    assert int(b.state.status[d]) == ACTIVE
    arrived = [e for e in b.events if e.kind == "UnitArrived"]
    assert [(e.unit, e.turn, e.hex, e.facing) for e in arrived] == [("defender", 6, "2817", "F")]
    assert int(b.state.speed[d]) > 0  # its standing allocation pays a speed


def test_scenario_8_not_arrived_agent_is_an_agent_whose_every_action_is_the_no_op():
    env = sfb_env.parallel_env("cth-08", illegal_action="raise")
    obs, _ = env.reset(seed=0)
    assert env.possible_agents == ["queen-of-diamonds", "defender"] == env.agents
    layout = env._layouts["defender"]
    mask = obs["defender"]["action_mask"]
    parts = env.action_space("defender").split_mask(mask)
    assert all(int(p.sum()) == 1 for p in parts)
    noop = layout.noop(env.battle)
    assert all(p[v] == 1 for p, v in zip(parts, noop, strict=True))
    reasons = env.mask_reasons("defender")
    assert all("has not arrived yet" in r for why in reasons.values() for r in why.values())
    b = env.battle
    with pytest.raises(IllegalOrderError, match="has not arrived yet"):
        b.validate({row(b, "defender"): Orders(maneuver=Maneuver.STRAIGHT)})
    for _ in range(2):  # impulse 0 (Energy Allocation) and impulse 1: both ways
        layout, noop = env._layouts["defender"], env._layouts["defender"].noop(b)
        b.validate({layout.unit: layout.to_orders(b, noop, env._slots["defender"])})
        reasons = env.mask_reasons("defender")
        for i, name in enumerate(layout.component_names()):
            for v in list(reasons[name])[:3]:
                action = noop.copy()
                action[i] = v
                orders = layout.to_orders(b, action, env._slots["defender"])
                with pytest.raises(IllegalOrderError) as err:
                    b.validate({layout.unit: orders})
                assert err.value.rule == reasons[name][v]
        env.step({})


@pytest.mark.parametrize("arrives, turn", [({"turn": 5}, 5), ({"turn": 2}, 2)])
def test_scenario_8_replay_defender_arrives_earlier(arrives, turn):
    doc = _doc()
    doc["units"][1]["arrives"] = arrives
    b = make_battle(doc, seed=0)
    while not any(e.kind == "UnitArrived" for e in b.events):
        b.step(_hold(b))
    assert b.state.turn == turn


def test_scenario_8_replay_defender_arrives_on_the_first_die_roll_of_1():
    doc = _doc()
    doc["units"][1]["arrives"] = {"die": 1}
    turns = set()
    for seed in range(4):
        b = make_battle(doc, seed=seed)
        while not any(e.kind == "UnitArrived" for e in b.events) and not b.done:
            b.step(_hold(b))
        turns |= {e.turn for e in b.events if e.kind == "UnitArrived"}
    assert turns and min(turns) >= 1
    doc["units"][1]["arrives"] = {"die": 7}
    with pytest.raises(ScenarioError, match="arrives"):
        make_battle(doc)


def test_scenario_8_freighters_fly_heading_b_at_speed_2_without_turns():
    b = make_battle("cth-08", seed=0)
    start = {uid: b.label(row(b, uid)) for uid in FREIGHTERS}
    while b.state.turn == 1:
        b.step(_hold(b))
    for uid in FREIGHTERS:
        f = row(b, uid)
        expected = hexmap.neighbor(hexmap.neighbor(start[uid], "B"), "B")
        assert b.label(f) == expected and int(b.state.facing[f]) == 1


def test_scenario_8_freighter_robot_fires_on_its_impulse_at_the_pirate_within_10():
    from sfb_env.engine import robots

    b = make_battle("cth-08", seed=0)
    st = b.state
    pirate, fa = row(b, "queen-of-diamonds"), row(b, "freighter-A")
    while st.impulse != 8:
        b.step(_hold(b))
    st.x[pirate], st.z[pirate] = hexmap.label_to_axial("0410")  # range 6 from 0116's course
    assert [(int(b.state.w_owner[w]), t) for w, t in robots.fire_orders(b)] == [(fa, pirate)]
    st.x[pirate], st.z[pirate] = hexmap.label_to_axial("2001")  # beyond 10 hexes
    assert robots.fire_orders(b) == []


def test_scenario_8_defender_may_never_fire_at_freighters():
    b = make_battle("cth-08", seed=0)
    d, f = row(b, "defender"), row(b, "freighter-A")
    b.state.status[d] = ACTIVE
    b.state.x[d], b.state.z[d] = hexmap.label_to_axial("0316")
    b.state.impulse = 3
    b.state.capacitor[d] = b.state.capacitor_max[d]  # phasers ready (H6.1)
    phasers = [int(w) for w in b.weapons_of(d) if ".PH1" in b.weapon_ids[int(w)]]
    assert phasers
    for w in phasers:
        why = b.fire_blockers(w, [f])[0]
        assert why is not None and "never fire at a freighter" in why
        assert not sfb_env.engine.direct_fire.fire_mask(b, np.array([w]))[0, f]
    with pytest.raises(IllegalOrderError, match="never fire at a freighter"):
        b.validate({d: Orders(maneuver=Maneuver.STRAIGHT if movement.moves_next(b, d)
                              else Maneuver.NONE, fire={phasers[0]: f})})
    # the pirate may (E1.2 only forbids friendly units)
    pirate = row(b, "queen-of-diamonds")
    assert b.hold_fire_kinds[pirate].sum() == 0


def test_scenario_8_freighters_and_defender_may_not_leave_voluntarily():
    b = make_battle("cth-08", seed=0)
    st = b.state
    fa = row(b, "freighter-A")
    st.x[fa], st.z[fa] = hexmap.label_to_axial("0101")  # top-left corner, heading B
    while not any(e.kind == "StayedOnMap" for e in b.events):
        b.step(_hold(b))
    assert int(st.status[fa]) == ACTIVE and b.label(fa) == "0101"
    # the defender's mask closes a move off the map while a turn is open
    d = row(b, "defender")
    st.status[d] = ACTIVE
    st.x[d], st.z[d] = hexmap.label_to_axial("2810")
    st.facing[d] = hexmap.direction_index("C")
    st.speed[d] = 31
    blocked = b.maneuver_blockers(d)
    if movement.moves_next(b, d):
        assert "may not leave the map" in blocked[Maneuver.STRAIGHT]
        assert Maneuver.TURN_RIGHT not in blocked  # heading D stays on the map


def _outcome(b, pirate_status, towed=0, boarded_off=0, boarded_on=0, time_up=False):
    st = b.state
    p = b.side_index["orion"]
    st.status[row(b, "queen-of-diamonds")] = pirate_status
    rows = [row(b, uid) for uid in FREIGHTERS]
    for f in rows[:towed]:
        st.status[f], st.towed_off_by[f] = DISENGAGED, p
    for f in rows[towed:towed + boarded_off]:
        st.status[f], st.captured_by[f] = DISENGAGED, p
    for f in rows[towed + boarded_off:towed + boarded_off + boarded_on]:
        st.captured_by[f] = p
    return victory_mod.evaluate(b, time_up)


def test_scenario_8_victory_levels():
    b = make_battle("cth-08", seed=0)
    assert _outcome(b, ACTIVE) is None
    for kwargs, result, level in (
        ({"towed": 3}, "win", "pirate victory"),
        ({"towed": 2, "boarded_off": 1}, "win", "pirate victory"),
        ({"towed": 1, "boarded_on": 1}, "draw", "break even"),
        ({"boarded_off": 1}, "draw", "break even"),
        ({}, "loss", "defender victory"),
    ):
        b = make_battle("cth-08", seed=0)
        outcome, _ = _outcome(b, DISENGAGED, **kwargs)
        assert (outcome["orion"]["result"], outcome["orion"]["level"]) == (result, level)
    b = make_battle("cth-08", seed=0)
    outcome, why = _outcome(b, DESTROYED, towed=3)
    assert outcome["defender"]["result"] == "win" and "destroyed" in why
    b = make_battle("cth-08", seed=0)
    outcome, why = _outcome(b, ACTIVE, time_up=True)  # still on the map after turn 12
    assert outcome["orion"]["result"] == "loss" and "counts as destroyed" in why


def test_scenario_8_pirate_tows_a_freighter_off_the_map_break_even():
    b = make_battle("cth-08", seed=0)
    st = b.state
    pirate, fd = row(b, "queen-of-diamonds"), row(b, "freighter-D")
    b.step(_hold(b, speed=10))
    st.x[pirate], st.z[pirate] = hexmap.label_to_axial("0214")  # next to freighter-D (0215)
    st.facing[pirate] = hexmap.direction_index("F")
    assert tractors.attach_blockers(b, pirate, 0, [fd])[0] is None
    orders = _hold(b, speed=None)
    orders[pirate].tractor[0] = fd
    b.step(orders)
    assert int(st.tractor_holder[fd]) == pirate
    while not b.done:
        b.step(_hold(b, speed=None))
    assert int(st.status[fd]) == DISENGAGED and int(st.towed_off_by[fd]) == b.side_index["orion"]
    assert b.outcome["orion"] == {"result": "draw", "level": "break even"}


def test_scenario_8_captured_freighter_is_flown_off_by_the_nearest_edge_and_counts():
    """PROPOSAL (engine.unit_rules): a freighter captured by boarding parties heads for the
    nearest edge and leaves; it counts once the pirate leaves (SCENARIOS #8)."""
    b = make_battle("cth-08", seed=0)
    st = b.state
    fb = row(b, "freighter-B")  # 0117: the west edge is one hex away
    st.captured_by[fb] = b.side_index["orion"]
    while int(st.status[fb]) == ACTIVE:
        b.step(_hold(b))
    assert int(st.status[fb]) == DISENGAGED and b.state.turn == 1
    left = next(e for e in b.events if e.kind == "LeftMap" and e.unit == "freighter-B")
    assert left.src[:2] == "01"
    st.status[row(b, "queen-of-diamonds")] = DISENGAGED
    outcome, _ = victory_mod.evaluate(b, False)
    assert outcome["orion"]["level"] == "break even"


def test_scenario_8_fuzz_2_seeds_to_the_end_of_turn_3():
    # captains that fight (fuzz_helpers: the pirate and defender captains with random
    # components, random-fighter); the full coverage floors are test_fuzz.py's
    cov = fuzz_games("cth-08", range(2), to_the_end=True, max_turns=3)
    assert_fights("cth-08", cov, turns=3)
    assert {"TractorAttached", "Transported"} <= cov.events


def test_scenario_8_fuzz_pirate_staying_and_defender_on_turn_2():
    """Fuzzing that reaches the defender and the freighters: the pirate may not leave."""
    doc = _doc()
    doc["units"][0]["may_leave"] = False
    doc["units"][1]["arrives"] = {"turn": 2}
    doc["turn_limit"] = 3
    cov = fuzz_games(doc, range(2), to_the_end=True)
    assert_fights("cth-08 variant", cov, turns=3)
    assert "UnitArrived" in cov.events


@pytest.mark.slow
def test_scenario_8_fuzz_seeds_0_to_99():
    assert_fights("cth-08", fuzz_games("cth-08", range(100), to_the_end=True), turns=6)


def test_g7_observation_tractors_block_shows_the_link():
    """The ``tractors`` rule-features sub-block (env.rule_features): beams holding, beams free,
    freighters in tow, and per target slot held by this ship / by another."""
    from sfb_env.env import observation_layout as obs_layout
    from sfb_env.env import rule_features

    env = sfb_env.parallel_env("cth-08")
    env.reset(seed=0)
    agent = "queen-of-diamonds"
    assert "tractors" in env.rule_features(agent)
    env.step({a: env._layouts[a].noop(env.battle) for a in env.agents})
    b = env.battle
    pirate, fd = b.unit_index[agent], b.unit_index["freighter-D"]
    b.state.x[pirate], b.state.z[pirate] = hexmap.label_to_axial("0214")
    env._observe()
    layout = env._layouts[agent]
    slot = int(np.flatnonzero(env._slots[agent] == fd)[0])
    action = layout.noop(b)
    action[layout.component_names().index("tractor[1]")] = slot + 2
    env.step({agent: action})
    slots = env._slots[agent]
    block = rule_features.encode(b, pirate, ("tractors",), slots)
    own = obs_layout.TRACTORS_OWN.read(block)
    assert own["holding"][0] == pytest.approx(1 / 3) and own["towed"][0] == pytest.approx(1 / 4)
    k = int(np.flatnonzero(slots == fd)[0])
    start = obs_layout.TRACTORS_OWN.size + obs_layout.TRACTOR_SLOT.size * k
    held = obs_layout.TRACTOR_SLOT.read(block[start:start + obs_layout.TRACTOR_SLOT.size])
    assert (held["held_by_us"][0], held["held_by_other"][0]) == (1.0, 0.0)
    obs = env.observe(agent)["observation"]
    assert obs.shape == env.observation_space(agent)["observation"].shape
