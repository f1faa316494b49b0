"""Scenarios 4 (The Dakota Incident) and 5 (Encounter): the robot ship (SCENARIOS.md §2.5,
``engine/robot_ship.py``), the stranded Dakota (§2.7), the ``dakota_incident`` and
``encounter`` victory kinds, and random masked play to the end. PettingZoo's
``parallel_api_test`` / ``parallel_seed_test`` and the both-ways mask test run on these
scenarios in ``test_env_api.py`` and ``test_env_masks.py`` (parametrised over every listed one).
"""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import (
    play_random,
    row,
    scenario,
    unit,
    weapon,
)
from fuzz_helpers import assert_fights, fuzz_games

import agents
import sfb_env
from agents.base import bind_policy
from sfb_env import hexmap
from sfb_env.data import load_data_file
from sfb_env.engine import Maneuver, Orders, ScenarioError, make_battle, robot_ship
from sfb_env.engine.scenario import SCENARIO_DIR
from sfb_env.engine.types import ACTIVE, DISENGAGED, Box

NAMES = ("cth-04", "cth-04-three", "cth-05")


def idle(b) -> dict[int, Orders]:
    """Orders that keep every agent where it is (speed 0 where speed is chosen)."""
    out = {}
    for u in b.agent_units():
        speed = 0 if b.speed_choice_open() else None
        blocked = b.maneuver_blockers(u) if speed is None else b.maneuver_blockers(u, speed)
        out[u] = Orders(maneuver=Maneuver.NONE if Maneuver.NONE not in blocked
                        else Maneuver.STRAIGHT, speed=speed)
    return out


def robot_duel(robot_hex: str, robot_facing: str, target_hex: str, *, robot_class="klingon-cadet",
               robots: dict[str, Any] | None = None, seed: int = 0, damage: str = "s4"):
    """A 16-impulse battle: a robot ship against a motionless agent ship."""
    doc = scenario(
        [unit("robot", robot_class, "red", robot_hex, robot_facing, 12, "robot-ship"),
         unit("player", "fed-cadet", "blue", target_hex, "A", 0)],
        rules={"speed_choice": True, "damage": damage},
        robots={"robot-ship": {"target": "player", **(robots or {})}}, turn_limit=30)
    doc["impulses_per_turn"] = 16
    return make_battle(doc, seed=seed)


def fired(b, who: str) -> list:
    return [e for e in b.events if e.kind == "Fired" and e.unit == who]


# ----------------------------------------------------------------------------- set-up


def test_cth_04_setup_scenario_4_forces_and_row_17():
    b = make_battle("cth-04", seed=0)
    sc = b.scenario
    assert sc.impulses_per_turn == 16 and sc.map_area.contains("2817")  # (CTH-DATA §1.1)
    assert sc.rules.damage == "s4"
    assert [(u.id, u.hex, u.controller) for u in sc.units] == [
        ("constellation", "2817", "agent"), ("dakota", "1405", "stranded"),
        ("war", "0117", "robot-ship")]
    b.step(idle(b))
    st = b.state
    assert st.speed[row(b, "war")] == 12 and st.speed[row(b, "dakota")] == 0
    assert st.previous_speed[row(b, "war")] == 10  # (SCENARIOS #4) previous speed 10


def test_cth_04_three_adds_fire_and_death():
    b = make_battle("cth-04-three", seed=0)
    assert [b.label(row(b, u)) for u in ("war", "fire", "death")] == ["0117", "0116", "0115"]


def test_cth_05_setup_encounter():
    b = make_battle("cth-05", seed=0)
    assert b.rules.damage == "cadet_dac"
    assert [b.label(row(b, u)) for u in ("destruction", "constellation")] == ["0216", "2801"]
    assert b.state.w_ammo[weapon(b, "destruction", "DRONE-1")] == 4
    assert sorted(b.agent_units()) == [row(b, "destruction"), row(b, "constellation")]


# ----------------------------------------------------------------------------- robot ship


def test_scenario_4_robot_speed_12_less_one_per_warp_box_from_next_turn():
    # (CTH-DATA §10.1, SCENARIOS §2.5) each destroyed warp box slows the robot by 1
    b = make_battle("cth-04", seed=0)
    war = row(b, "war")
    b.step(idle(b))
    assert b.state.speed[war] == 12
    b.state.boxes[war, Box.WARP] -= 3
    assert b.state.speed[war] == 12  # not this turn
    while b.state.turn == 1:
        b.step(idle(b))
    assert b.state.speed[war] == 9
    assert robot_ship.turn_speed(b, war) == 9


def test_scenario_4_robot_stops_after_12_warp_losses():
    b = make_battle("cth-04", seed=0)
    war = row(b, "war")
    b.state.boxes[war, Box.WARP] = 16 - 12
    b.step(idle(b))
    assert b.state.speed[war] == 0


def test_robot_ship_launches_one_drone_on_impulse_1_of_every_turn():
    b = make_battle("cth-04", seed=0)
    while b.state.turn < 4 and not b.done:
        b.step(idle(b))
    launches = [(e.turn, e.impulse) for e in b.events if e.kind == "Launched"]
    assert launches == [(1, 1), (2, 1), (3, 1)]


def test_robot_ship_primary_fire_point_within_4_hexes_fires_every_bearing_weapon():
    b = robot_duel("1008", "A", "1005")  # range 3, the player dead ahead
    b.step(idle(b))  # to impulse 1 (speed 12 does not move on impulse 1)
    b.step(idle(b))  # impulse 1's fire
    shots = fired(b, "robot")
    assert shots and {e.impulse for e in shots} == {1}
    names = {e.weapon.split(".")[1] for e in shots}
    assert {"PH2-1", "PH2-2", "DISR-A", "DISR-B"} <= names  # the FX/FA weapons bear


def test_robot_ship_holds_fire_beyond_4_hexes_until_the_last_impulse():
    b = robot_duel("0116", "A", "0101", robots={"speed": 0})  # range 15, dead ahead, stopped
    while b.state.turn == 1:
        b.step(idle(b))
    shots = fired(b, "robot")
    assert shots and {e.impulse for e in shots} == {16}
    assert {e.weapon.split(".")[1] for e in shots} == {"PH2-1", "PH2-2", "DISR-A", "DISR-B"}


def test_robot_ship_federation_fires_one_photon_a_turn_tube_a_odd_b_even():
    # (SCENARIOS §2.5 PROPOSAL) tube A on odd turns, B on even turns
    b = robot_duel("1008", "A", "1004", robot_class="fed-cadet",
                   robots={"speed": 0})  # range 4, dead ahead
    tubes = []
    while b.state.turn <= 3:
        b.step(idle(b))
    for e in fired(b, "robot"):
        if e.weapon_type == "photon":
            tubes.append((e.turn, e.weapon.split(".")[1]))
    assert tubes == [(1, "PHOT-A"), (2, "PHOT-B"), (3, "PHOT-A")]


def test_robot_ship_fires_photons_from_turn_1_it_pays_no_energy():
    b = robot_duel("1008", "A", "1004", robot_class="fed-cadet", robots={"speed": 0})
    b.step(idle(b))
    b.step(idle(b))
    assert "photon" in {e.weapon_type for e in fired(b, "robot") if e.turn == 1}


def test_robot_ship_post_pfp_turns_toward_unfired_weapons():
    # PFP on impulse 1 with the FX/FA weapons; the side ph-2s (L+LR, R+RR) are unfired, so it
    # turns at its first move and fires each as soon as it bears, each once in the turn
    b = robot_duel("1010", "A", "1207", robots={"speed": 12})
    while b.state.turn == 1:
        b.step(idle(b))
    shots = [e for e in fired(b, "robot") if e.turn == 1]
    pfp = {e.weapon.split(".")[1] for e in shots if e.impulse == 1}
    assert pfp == {"PH2-1", "PH2-2", "DISR-A", "DISR-B"}
    first_move = next(e for e in b.events if e.kind == "Moved" and e.unit == "robot")
    assert first_move.impulse == 2 and first_move.turned != 0
    later = [e.weapon.split(".")[1] for e in shots if e.impulse > 1]
    assert sorted(later) == ["PH2-3", "PH2-4"]


def test_pursuit_choice_matches_the_robot_drone_anchor():
    # (SCENARIOS §2.3) straight unless a turn is strictly closer; ties by die odd = left
    assert robot_ship.pursuit_choice(3, 2, 4, True, 1) == Maneuver.TURN_LEFT
    assert robot_ship.pursuit_choice(3, 3, 3, True, 1) == Maneuver.STRAIGHT
    assert robot_ship.pursuit_choice(3, 2, 2, True, 1) == Maneuver.TURN_LEFT
    assert robot_ship.pursuit_choice(3, 2, 2, True, 2) == Maneuver.TURN_RIGHT
    assert robot_ship.pursuit_choice(3, 1, 2, False, 1) == Maneuver.STRAIGHT  # (C3.2)


@pytest.mark.parametrize("seed", range(4))
def test_robot_ship_never_leaves_the_map_and_never_fires_at_the_dakota(seed):
    # (SCENARIOS §2.5 map edge, §2.7) a motionless target in a corner: the robots circle it
    b = make_battle("cth-04-three", seed=seed)
    c = row(b, "constellation")
    b.state.x[c], b.state.z[c] = hexmap.label_to_axial("0202", b.scenario.parity)
    b.state.shields[c] = 10**6  # keep the target alive for the whole run
    while not b.done and b.state.turn <= 8:
        b.step(idle(b))
    assert b.state.turn > 8
    for r in ("war", "fire", "death"):
        assert b.state.status[row(b, r)] == ACTIVE
    shots = [e for e in b.events if e.kind == "Fired" and e.unit in ("war", "fire", "death")]
    assert shots and all(e.target == "constellation" for e in shots)


# ----------------------------------------------------------------------------- victory


def _drive(b, uid: str, label: str, facing: str, until) -> None:
    """Put ``uid`` on ``label`` with ``facing`` and fly it straight at speed 16 until
    ``until(b)`` (the others stay put)."""
    u = row(b, uid)
    b.state.x[u], b.state.z[u] = hexmap.label_to_axial(label, b.scenario.parity)
    b.state.facing[u] = hexmap.direction_index(facing)
    while not until(b) and not b.done:
        orders = idle(b)
        speed = 16 if b.speed_choice_open() else None
        blocked = b.maneuver_blockers(u) if speed is None else b.maneuver_blockers(u, speed)
        orders[u] = Orders(maneuver=Maneuver.NONE if Maneuver.STRAIGHT in blocked
                           else Maneuver.STRAIGHT, speed=speed)
        b.step(orders)


def _moved_to(uid: str, label: str):
    return lambda b: any(e.kind == "Moved" and e.unit == uid and e.dst == label
                         for e in b.events)


def test_dakota_incident_win_after_passing_the_dakota_then_east_edge():
    b = make_battle("cth-04", seed=0)
    _drive(b, "constellation", "1407", "A", _moved_to("constellation", "1406"))  # range 1
    _drive(b, "constellation", "2810", "B", lambda b: b.done)
    assert b.outcome["federation"] == {"result": "win", "level": "rescue"}
    assert b.outcome["klingon"]["result"] == "loss"


def test_dakota_incident_east_edge_without_the_rescue_is_a_loss():
    b = make_battle("cth-04", seed=0)
    _drive(b, "constellation", "2810", "B", lambda b: b.done)
    assert b.outcome["federation"] == {"result": "loss", "level": "no rescue"}


def test_dakota_incident_leaving_by_another_edge_destroys_the_ship():
    b = make_battle("cth-04", seed=0)
    _drive(b, "constellation", "1407", "A", _moved_to("constellation", "1406"))
    _drive(b, "constellation", "2002", "A", lambda b: b.done)  # north edge
    assert b.state.status[row(b, "constellation")] == DISENGAGED
    assert b.outcome["federation"] == {"result": "loss", "level": "destroyed"}


def test_dakota_incident_constellation_destroyed_is_a_loss():
    b = make_battle("cth-04", seed=0)
    b.apply_damage(row(b, "constellation"), 1, 200)
    b.step(idle(b))
    assert b.done and b.outcome["federation"] == {"result": "loss", "level": "destroyed"}


def test_dakota_incident_turn_cap_is_a_loss():
    b = make_battle("cth-04", seed=0, max_turns=1)
    b.state.speed[row(b, "war")] = 0
    while not b.done:
        b.step(idle(b))
    assert b.time_up and b.outcome["federation"]["result"] == "loss"


def test_encounter_destroyed_side_loses_the_other_wins():
    b = make_battle("cth-05", seed=0)
    b.apply_damage(row(b, "destruction"), 1, 200)
    b.step(idle(b))
    assert b.outcome == {"klingon": {"result": "loss", "level": "destroyed"},
                         "federation": {"result": "win", "level": "destroyed"}}


def test_encounter_disengaging_side_draws_the_other_tactical_win():
    b = make_battle("cth-05", seed=0)
    _drive(b, "constellation", "2805", "B", lambda b: b.done)
    assert b.outcome == {"klingon": {"result": "win", "level": "tactical"},
                         "federation": {"result": "draw", "level": "disengaged"}}


def test_encounter_both_destroyed_both_lose():
    b = make_battle("cth-05", seed=0)
    b.apply_damage(row(b, "destruction"), 1, 200)
    b.apply_damage(row(b, "constellation"), 1, 200)
    b.step(idle(b))
    assert {s: o["result"] for s, o in b.outcome.items()} == {"klingon": "loss",
                                                             "federation": "loss"}


def test_victory_fields_are_validated():
    doc = dict(load_data_file(SCENARIO_DIR / "cth-04.yaml"))
    doc["victory"] = {"kind": "dakota_incident", "side": "federation", "ship": "nobody",
                      "dakota": "dakota"}
    with pytest.raises(ScenarioError, match="victory.ship"):
        make_battle(doc)


# ----------------------------------------------------------------------------- random play


@pytest.mark.parametrize("name", NAMES)
def test_fuzz_2_seeds_to_the_end_of_turn_3(name):
    # captains that fight (fuzz_helpers): random play announced disengagement at once in
    # cth-05; the full coverage floors are test_fuzz.py's
    assert_fights(name, fuzz_games(name, range(2), to_the_end=True, max_turns=3))


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_fuzz_100_seeds_to_the_end(name):
    assert_fights(name, fuzz_games(name, range(100), to_the_end=True))


@pytest.mark.parametrize("name", NAMES)
def test_robot_and_dac_games_are_deterministic(name):
    assert play_random(name, 7).events == play_random(name, 7).events


@pytest.mark.parametrize("name", ("cth-04", "cth-05"))
def test_doctrine_captains_fight_to_the_end_with_internal_damage(name):
    # full games where ships take internal damage: the scenario-4 rule and the cadet DAC in play
    env = sfb_env.parallel_env(name, illegal_action="raise")
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        captains = {}
        for a in env.agents:
            captains[a] = agents.get("doctrine")
            bind_policy(captains[a], env, a)
            captains[a].reset(seed)
        while env.agents:
            obs, *_ = env.step({a: captains[a].act(obs[a], env.action_space(a))
                                for a in env.agents})
        b = env.battle
        hits = [e for e in b.events if e.kind == "Damaged" and e.internal
                and e.unit in ("constellation", "war", "destruction")]
        assert hits and all(len(e.boxes) <= e.internal for e in hits)
        assert b.outcome is not None and b.end_reason


def test_robot_ship_fires_at_a_target_about_to_leave_the_map():
    # (SCENARIOS §2.5 override) range 9, no PFP yet: the target stands in an edge hex, moves
    # on the next impulse straight off the map and may not turn (turn mode 2, 1 hex straight)
    b = robot_duel("1010", "A", "1002", robots={"speed": 0})
    p = row(b, "player")
    b.state.straight[p] = 0
    b.step({p: Orders(maneuver=Maneuver.STRAIGHT, speed=16)})
    assert b.label(p) == "1001" and b.state.impulse == 1
    assert not fired(b, "robot")
    b.step({p: Orders(maneuver=Maneuver.STRAIGHT)})
    shots = fired(b, "robot")
    assert shots and {(e.turn, e.impulse, e.range) for e in shots} == {(1, 1, 9)}
    assert b.state.status[p] == DISENGAGED  # it left on impulse 2 all the same
