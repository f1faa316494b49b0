"""The Dakota Incident (SCENARIOS #4) in compiled code against the reference engine, phase by
phase: the robot ship's decisions (§2.5: ``compiled.robot_ship`` against
``engine.robot_ship``: its planned maneuvers, PURSUE, POST-PFP and the map-edge override; its
fire orders at the Primary Fire Point; its drone launches), its Speed Determination (12 less one
per warp box lost), the scenario-4 damage rule (CTH-DATA §10.1: ``compiled.damage._s4_internal``
against ``engine.damage._s4_internal``, the robot's variant with warp last) and the
``dakota_incident`` victory (the rescue judged from the ship's course)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from compiled_phase_helpers import play_fighting, volleys_until_destroyed

import sfb_env
from sfb_env import hexmap, impulse
from sfb_env.compiled import (
    ending,
    layout,
    movement,
    observe,
    parity,
    robot_ship,
    tiers,
)
from sfb_env.engine import events as ev
from sfb_env.engine import procedure, robots, victory
from sfb_env.engine import robot_ship as ref_robot
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario
from sfb_env.engine.types import ACTIVE, DESTROYED, DISENGAGED, Box, Maneuver

pytestmark = pytest.mark.compiled_late  # after the core is built (tests/conftest.py)

SCENARIOS = ("cth-04", "cth-04-three")


def test_the_dakota_incident_is_played_by_the_compiled_core():
    """Both shipped variants flip to the compiled core (``backend="auto"``); a battle without
    a robot ship builds its robot tables switched off (the step calls nothing of them)."""
    for name in SCENARIOS:
        assert tiers.missing(make_battle(load_scenario(name)).setup) == []
        assert name in tiers.compiled_scenarios()
    assert robot_ship.robot_tables(make_battle(load_scenario("cth-04")).setup).on
    assert not robot_ship.robot_tables(make_battle(load_scenario("cth-03")).setup).on


# ---------------------------------------------------------------------- reachable states


@functools.cache
def _snapshots(name: str, seeds: tuple[int, ...] = (0, 1, 2, 3), steps: int = 300) -> dict:
    """Reference games of ``name`` by ``random-fighter`` captains, copied at the entry of Move
    Ships, Launch Seeking Weapons and Fire Direct-Fire (cached per scenario)."""
    snaps: dict[str, list] = {"move": [], "launch": [], "fire": []}
    move, launch, fire = (procedure._move_ships, procedure._launch_seeking_weapons,
                          procedure._fire_direct_fire)

    def move_hook(battle, orders):
        snaps["move"].append(battle.copy())
        move(battle, orders)

    def launch_hook(battle, orders):
        snaps["launch"].append(battle.copy())
        launch(battle, orders)

    def fire_hook(battle, orders):
        snaps["fire"].append(battle.copy())
        fire(battle, orders)

    procedure._move_ships, procedure._launch_seeking_weapons = move_hook, launch_hook
    procedure._fire_direct_fire = fire_hook
    try:
        for seed in seeds:
            env = sfb_env.parallel_env(name, backend="reference")
            play_fighting(env, seed, steps)
    finally:
        procedure._move_ships, procedure._launch_seeking_weapons = move, launch
        procedure._fire_direct_fire = fire
    return snaps


def _tables(battle):
    setup = battle.setup
    return (movement.move_tables(setup), observe.observe_tables(setup),
            robot_ship.robot_tables(setup))


def _robots(battle) -> list[int]:
    return [u for u, c in enumerate(battle.controllers) if c == ref_robot.CONTROLLER]


def test_robot_ship_maneuvers_match_the_reference():
    """(§2.5 PURSUE, POST-PFP, map edge; PROPOSALS [P-123], [P-124]) At every Move Ships of
    played games, each robot ship that moves plans the reference's maneuver, with the same
    dice (its tie dice), from the positions ``_move_ships`` sees (previous hexes set first)."""
    seen = {"pursue": 0, "post_pfp": 0, "turned": 0}
    for name in SCENARIOS:
        for battle in _snapshots(name)["move"]:
            ref = battle.copy()
            st = ref.state
            st.prev_x[:], st.prev_z[:], st.prev_facing[:] = st.x, st.z, st.facing
            movers = set(int(u) for u in np.flatnonzero(
                (st.status == ACTIVE) & ~st.tactical
                & np.array([impulse.moves_on(int(v), st.impulse, st.impulses_per_turn)
                            for v in st.speed])))
            want = {}
            for u in _robots(ref):
                if u in movers:
                    seen["post_pfp" if ref_robot.past_pfp(ref, u) else "pursue"] += 1
                    want[u] = int(robots.maneuver(ref, u))
                    seen["turned"] += want[u] != int(Maneuver.STRAIGHT)
            mt, ot, rt = _tables(battle)
            s = layout.pack([battle.copy().state])
            robot_ship.plan_moves(s, mt, ot, rt, 0)
            got = {u: int(mt.pilot_plan[u]) for u in want}
            assert got == want, (name, st.turn, st.impulse)
            assert layout.differences(s, 0, st) == [], (name, st.turn, st.impulse)
    assert min(seen.values()) > 0, seen


def test_robot_ship_fire_and_launch_orders_match_the_reference():
    """(§2.5 fire points, PROPOSALS [P-122], [P-125]; drones on impulse 1) The robot ships'
    shots at every Fire Direct-Fire and their launches at every Launch Seeking Weapons of
    played games are the reference's (``robots.fire_orders``, ``robots.launch_orders``)."""
    shots = launches = 0
    for name in SCENARIOS:
        snaps = _snapshots(name)
        for battle in snaps["fire"]:
            ref = battle.copy()
            robot_units = set(_robots(ref))
            want = {w: t for w, t in robots.fire_orders(ref)
                    if int(ref.state.w_owner[w]) in robot_units}
            mt, ot, rt = _tables(battle)
            s = layout.pack([battle.copy().state])
            o = layout.empty_orders(1, len(battle.unit_ids), len(battle.weapon_ids))
            robot_ship.fire_orders(s, mt, ot, rt, 0, o.fire)
            got = {int(w): int(o.fire[0, w]) for w in np.flatnonzero(o.fire[0] >= 0)}
            assert got == want, (name, battle.state.turn, battle.state.impulse)
            shots += len(want)
        for battle in snaps["launch"]:
            ref = battle.copy()
            want = dict(robots.launch_orders(ref))
            mt, ot, rt = _tables(battle)
            s = layout.pack([battle.copy().state])
            o = layout.empty_orders(1, len(battle.unit_ids), len(battle.weapon_ids))
            robot_ship.launch_orders(s, ot, rt, 0, o.launch)
            got = {int(w): int(o.launch[0, w]) for w in np.flatnonzero(o.launch[0] >= 0)}
            assert got == want, (name, battle.state.turn, battle.state.impulse)
            launches += len(want)
    assert shots > 20 and launches > 5, (shots, launches)


def test_robot_ship_speed_falls_by_one_per_warp_box_lost():
    """(§2.5, CTH-DATA §10.1) At Speed Determination the robot's speed is 12 less its warp
    boxes lost, from the next turn on; its weapons are armed (``robots.start_turn``)."""
    battle = make_battle(load_scenario("cth-04"), seed=0)
    war = battle.unit_index["war"]
    for lost in (0, 1, 5, 16):
        ref = battle.copy()
        ref.state.boxes[war, Box.WARP] -= lost
        ref.state.w_ready_turn[ref.weapons_of(war)] = 9
        s = layout.pack([ref.copy().state])
        robots.start_turn(ref, war)
        mt = movement.move_tables(ref.setup)
        from sfb_env.compiled import robots as c_robots
        c_robots.robot_ship_turn(s.speed, s.boxes, s.w_ready_turn, s.w_armed, s.w_type,
                                 s.w_owner, mt.robot_speed, mt.robot_warp, int(s.turn[0]), 0,
                                 war)
        assert int(s.speed[0, war]) == max(0, 12 - lost) == int(ref.state.speed[war])
        assert layout.differences(s, 0, ref.state) == []


# ---------------------------------------------------------------------- the s4 damage rule


def test_s4_volleys_match_the_reference_down_to_destruction():
    """(Scenario-4 rule, CTH-DATA §10.1) Volleys of 1 to 12 points on the Constellation (the
    player's order) and on the robot War (other boxes, then warp, then weapons) until both
    are destroyed: the state, dice and decoded events equal the reference's after each; the
    2nd point of a volley takes a warp box while any is left."""
    rng = np.random.default_rng(4)
    seen = {"warp_second": 0, "weapon_first": 0, "destroyed": 0, "robot_warp_late": 0}
    for seed in range(3):
        ref = make_battle(load_scenario("cth-04"), seed=seed)
        ships = [ref.unit_index["constellation"], ref.unit_index["war"]]
        for u, want in volleys_until_destroyed(ref, ships, rng, 300, low_shield=1):
            for e in want:
                if e.kind == "Damaged" and len(e.boxes) >= 2:
                    seen["weapon_first"] += "." in e.boxes[0]
                    seen["warp_second"] += e.boxes[1] == "warp"
                    if u == ships[1]:
                        seen["robot_warp_late"] += "warp" in e.boxes[2:]
                seen["destroyed"] += e.kind == "Destroyed"
        assert all(ref.state.status[u] == DESTROYED for u in ships)
    assert min(seen.values()) > 0, seen


# ---------------------------------------------------------------------- victory


def _course(name: str, route: list[str], leaves: bool, destroyed: bool = False):
    """The Constellation flown through the hexes ``route``, then off the map from the last one
    (``leaves``) or destroyed there: the reference verdict (from the events) and the compiled
    one (a verdict after each move, ``victory_mark`` remembering the rescue)."""
    battle = make_battle(load_scenario(name), seed=0)
    et = ending.end_tables(battle.setup)
    s = layout.pack([battle.copy().state])
    st = battle.state
    ship = battle.unit_index["constellation"]
    grid = battle.scenario.parity
    src = battle.label(ship)
    for label in route:
        x, z = hexmap.label_to_axial(label, grid)
        st.prev_x[ship], st.prev_z[ship] = hexmap.label_to_axial(src, grid)
        st.x[ship], st.z[ship] = x, z
        battle.log(ev.Moved(1, 1, "constellation", src, label, "A", 0))
        s.prev_x[0, ship], s.prev_z[0, ship] = st.prev_x[ship], st.prev_z[ship]
        s.x[0, ship], s.z[0, ship] = x, z
        assert ending.verdict(s, et, 0, False) == ending.GOES_ON
        src = label
    if leaves or destroyed:
        st.status[ship] = DESTROYED if destroyed else DISENGAGED
        s.status[0, ship] = st.status[ship]
        if leaves:
            battle.log(ev.LeftMap(1, 2, "constellation", src, "B"))
    code = ending.verdict(s, et, 0, False)
    verdict = victory.evaluate(battle, False)
    want = None if verdict is None else [verdict[0][side]["result"] for side in
                                         battle.scenario.sides]
    got = None if code == ending.GOES_ON else ending.outcome_results(code, 2)
    return got, want


def test_dakota_incident_verdicts_match_the_reference():
    """(SCENARIOS #4, PROPOSAL [P-020]) A win needs a hex at range <= 1 of the Dakota (1405)
    and then an exit by the east edge (column 28); an exit elsewhere, an exit without the
    rescue, or the ship destroyed is a loss; in play, the battle goes on."""
    near = ["1505", "1605", "1705"]  # 1505 is adjacent to the Dakota
    east = ["1805", "1905", "2005", "2105", "2205", "2305", "2405", "2505", "2605", "2705",
            "2805"]
    cases = {
        "rescue then east": (near + east, True, False, ["win", "loss"]),
        "east without rescue": (["2716", "2715", "2815"], True, False, ["loss", "win"]),
        "rescue then west": (near + ["0105"], True, False, ["loss", "win"]),
        "rescue then destroyed": (near, False, True, ["loss", "win"]),
        "in play": (near, False, False, None),
    }
    for name in SCENARIOS:
        for case, (route, leaves, destroyed, expected) in cases.items():
            got, want = _course(name, route, leaves, destroyed)
            assert got == want == expected, (name, case, got, want)


def test_robot_ships_carry_only_the_ported_weapons():
    """A robot ship with a weapon whose robot rule is not ported (the Hydran's phaser-G, the
    Gorn's plasma) keeps the scenario on the reference engine (``robot_tables`` refuses it)."""
    for unit_class, word in (("hydran-cadet", "PHG"), ("gorn-cadet", "PLASMA_F")):
        swapped = parity.variant("cth-04", swap=("war", unit_class, "klingon"))
        missing = tiers.missing(make_battle(load_scenario(swapped)).setup)
        assert missing == [f"compiled tables: compiled robot ship: {word} on a robot ship"]


@pytest.mark.parametrize("unit_class", ["fed-cadet", "kzinti-cadet"])
def test_other_robot_ships_match_the_reference(unit_class):
    """(§2.5, PROPOSAL [P-121]) The robot flying the Federation Cadet Cruiser (one photon a
    turn: tube A on odd turns, B on even) and the Kzinti (four racks, one drone a turn):
    lockstep play against the reference, fighting captains, autoreset."""
    swapped = parity.variant("cth-04", swap=("war", unit_class, "klingon"))
    report = parity.lockstep(swapped, num_battles=2, steps=150, seed=5, policy="random-fighter")
    assert report.events.get("Fired", 0) > 0
    assert unit_class != "kzinti-cadet" or report.events.get("Launched", 0) > 0


def _rescue_variant() -> dict:
    """cth-04 with the Constellation starting next to the Dakota, a few hexes from the east
    edge (a rescue within reach of random play)."""
    doc = parity.variant("cth-04")
    for spec in doc["units"]:
        if spec["id"] == "constellation":
            spec.update({"hex": "2405", "facing": "C"})
        if spec["id"] == "dakota":
            spec["hex"] = "2305"
    doc["name"] = "cth-04+rescue"
    return doc


@pytest.mark.parametrize("scenario", ["cth-04", "rescue"])
def test_compiled_env_words_the_dakota_verdict_as_the_reference(scenario):
    """(SCENARIOS #4) Played to the end with the same masked random actions, the compiled env
    and the reference env give the same outcome (result, level and reason) in every agent's
    infos and in ``env.battle``: the compiled env judges the wording on its decoded event log
    (``tiers.EVENT_VICTORY``). Near the Dakota, some battles end in a rescue."""
    doc = _rescue_variant() if scenario == "rescue" else scenario
    levels = set()
    for seed in range(6):
        env = sfb_env.parallel_env(doc, backend="compiled")
        ref = sfb_env.parallel_env(doc, backend="reference")
        obs, _ = env.reset(seed=seed)
        ref.reset(seed=seed)
        for a in env.possible_agents:
            env.action_space(a).seed(seed)
        infos = ref_infos = {}
        for _ in range(600):
            if not env.agents:
                break
            actions = {a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                       for a in env.agents}
            obs, _, _, _, infos = env.step(actions)
            _, _, _, _, ref_infos = ref.step(actions)
        assert not env.agents and not ref.agents
        got = {a: i.get("outcome") for a, i in infos.items()}
        assert got == {a: i.get("outcome") for a, i in ref_infos.items()}, seed
        assert env.battle.outcome == ref.battle.outcome
        assert env.battle.end_reason == ref.battle.end_reason
        levels |= {o["level"] for o in got.values() if o}
    assert levels, levels
    if scenario == "rescue":
        assert "rescue" in levels, levels
