"""The Planet Killer (SCENARIOS #11, §2.8), lab research (G4.0) and probes (G5.0) on the compiled
core (``compiled.planet_killer``, ``compiled.kill_methods``, ``compiled.probes``): cth-11 is the
compiled core's; the monster's detection, following, moves and shots, its close-in defence, the
labs' research and its rolls, the probes' arming, energy and launch, the kill methods and the
``planet_killer`` verdict match the reference step by step (``parity.lockstep``)."""

from __future__ import annotations

import numpy as np
import pytest

import sfb_env
from sfb_env.compiled import (
    damage,
    ending,
    event_codes,
    kill_methods,
    layout,
    parity,
    planet_killer,
    probes,
    tiers,
)
from sfb_env.compiled.layout import pack
from sfb_env.engine import kill_methods as ref_kill
from sfb_env.engine import planet_killer as ref_pk
from sfb_env.engine import victory
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario, parse_scenario
from sfb_env.engine.types import ACTIVE, DESTROYED, DISENGAGED, K_PLASMA

pytestmark = pytest.mark.compiled_late  # after the core is built, on either xdist worker


def _near(name: str, ship: str, facing: str, speed: int, monster: str) -> dict:
    doc = parity.variant("cth-11")
    for unit in doc["units"]:
        if unit["id"] == "constellation":
            unit.update({"hex": ship, "facing": facing, "speed": speed})
        if unit["id"] == "planet-killer":
            unit["hex"] = monster
    doc["name"] += f",{name}"
    return doc


# the ship three hexes below the monster in mid-map, slow: random play is detected, followed
# and fired at, researches at close range (the research rolls of the first turns), launches
# probes and fires at the monster
CLOSE = _near("close", "1409", "A", 4, "1406")
# the monster three hexes from the planet, the ship beside it: detection shots at once, the
# planet fired at
AT_PLANET = _near("at-planet", "2212", "B", 2, "2211")


def _battle(doc: dict, seed: int = 0):
    return make_battle(parse_scenario(doc, doc["name"]), seed=seed)


def test_cth_11_is_played_by_the_compiled_core():
    """cth-11 flips to the compiled core (``backend="auto"``): every rule of it is ported, the
    last of the 75 shipped scenarios."""
    assert tiers.missing(make_battle(load_scenario("cth-11")).setup) == []
    assert "cth-11" in tiers.compiled_scenarios()
    assert sfb_env.backend_of(sfb_env.parallel_env("cth-11", backend="auto")) == "compiled"


def test_g5_probe_tables_and_g4_lab_chart():
    """(G5.11) The Federation CA's launcher and 5 probes under the standard form; (G4.0,
    CTH-DATA §8.8) the lab chart max(0, 11 - die - range) to range 10."""
    battle = make_battle(load_scenario("cth-11"))
    pt = probes.probe_tables(battle.setup)
    ship = battle.unit_index["constellation"]
    assert pt.on and pt.has_probes[ship] and pt.antimatter_rule
    assert np.flatnonzero(pt.has_probes).tolist() == [ship]
    mt = planet_killer.monster_tables(battle.setup)
    assert mt.on and mt.research and mt.probes
    assert mt.planet == battle.unit_index["planet"]
    for die in range(1, 7):
        for rng in range(11):
            assert mt.lab_chart[die - 1, rng] == max(0, 11 - die - rng), (die, rng)


def test_scenario_11_method_3_damage_counts_as_the_reference():
    """(SCENARIOS §2.8 result 3) Points on the monster count toward method 3, at most 150 before
    a side found it; once found, 200 destroy it (credited to that side): the compiled handler
    against ``kill_methods.take_damage`` on the same volleys."""
    for found in (False, True):
        battle = make_battle(load_scenario("cth-11"), seed=3)
        st = battle.state
        m = battle.unit_index["planet-killer"]
        side = int(st.side[battle.unit_index["constellation"]])
        if found:
            st.kill_methods[side, ref_kill.Method.DAMAGE - 1] = True
        s = pack([battle.state])
        for points in (60, 70, 40, 45):
            n = len(battle.events)
            ref_kill.take_damage(battle, m, points)
            s.ev_count[0] = 0
            kill_methods.take_damage(s.status, s.side, s.damage, s.monster_counted,
                                     s.kill_methods, s.ev, s.ev_count, st.turn, st.impulse, 0,
                                     m, points)
            assert s.monster_counted[0, m] == st.monster_counted[m]
            assert s.status[0, m] == st.status[m]
            assert s.ev_count[0] == len(battle.events) - n
        assert int(st.monster_counted[m]) == (215 if found else 150)
        assert (st.status[m] == DESTROYED) == found


def test_scenario_11_verdict_matches_the_reference():
    """(SCENARIOS #11 "How to win") The monster destroyed, the planet at 200 points, the ship
    gone, the truncation: ``ending._planet_killer_a`` against ``victory.evaluate``."""
    battle = make_battle(load_scenario("cth-11"))
    st = battle.state
    et = ending.end_tables(battle.setup)
    m, p = battle.unit_index["planet-killer"], battle.unit_index["planet"]
    ship = battle.unit_index["constellation"]
    cases = [{}, {"planet": 199}, {"planet": 200}, {"monster": DESTROYED},
             {"ship": DISENGAGED}, {"ship": DESTROYED}, {"time_up": True}]
    for case in cases:
        st.status[m] = case.get("monster", ACTIVE)
        st.status[ship] = case.get("ship", ACTIVE)
        st.damage[p] = case.get("planet", 0)
        time_up = case.get("time_up", False)
        s = pack([st])
        code = ending.verdict(s, et, 0, time_up)
        verdict = victory.evaluate(battle, time_up)
        if verdict is None:
            assert code == ending.GOES_ON, case
            continue
        outcome, _ = verdict
        assert ending.outcome_results(code, 2) == [outcome[side]["result"]
                                                   for side in battle.scenario.sides], case


def test_scenario_11_shots_at_plasma_torpedoes_match_the_reference():
    """(SCENARIOS §2.8) After movement the monster fires at each plasma torpedo that moved
    within 2 hexes, once per torpedo (as a phaser, FP1.6; random play never brings one there:
    the Gorn CA beside the monster, two of its torpedo rows placed in flight, one within 2, one
    at 3): ``planet_killer.after_movement`` against the reference on the same state, twice."""
    doc = parity.variant("cth-11", swap=("constellation", "gorn-ca", None))
    battle = _battle(doc, seed=2)
    st = battle.state
    m = battle.unit_index["planet-killer"]
    st.x[m], st.z[m] = 14, 0
    torps = np.flatnonzero(st.kind == K_PLASMA)[:2]
    st.turn, st.impulse = 2, 5
    for t, dz in zip(torps, (2, 3), strict=True):
        st.status[t] = ACTIVE
        st.x[t], st.z[t] = 14, dz
        st.prev_x[t], st.prev_z[t] = 14, dz + 1
        st.launched_at[t] = 32 + 3
        st.target[t] = m
    ft = damage.fire_tables(battle.setup)
    decoder = event_codes.Decoder(battle.unit_ids, battle.weapon_ids,
                                  list(battle.scenario.sides), battle.scenario.parity)
    for _ in range(2):
        s = pack([st])
        n = len(battle.events)
        ref_pk.after_movement(battle)
        planet_killer.after_movement(s, ft, 0)
        assert layout.differences(s, 0, st) == []
        assert decoder.decode(s.ev[0, :s.ev_count[0]]) == battle.events[n:]
    fired = [e for e in battle.events if e.kind == "MonsterFired"]
    assert [(e.target, e.shot) for e in fired] == [(battle.unit_ids[torps[0]], "plasma")]


def test_monster_close_in_random_play_matches_the_reference():
    """Random masked play with the ship close to the monster: detection and following, the
    detection and normal shots, the labs' research and rolls, probes, the shots at the
    monster (method-3 damage) alike on both engines."""
    report = parity.lockstep(CLOSE, num_battles=2, steps=400, seed=3)
    for kind in ("MonsterFollows", "MonsterFired", "Researched", "ResearchRolled",
                 "MonsterStruck", "CloseInDefence", "ProbeLaunched"):
        assert report.events.get(kind, 0) > 0, (kind, report.events)


def test_monster_fighting_captains_match_the_reference():
    """The fighting captains beside the monster: their fire on it, its shots, close-in defence
    against the drones and shuttles they send, a kill method found and used (a boarding
    party beamed over, PROPOSAL [P-114])."""
    report = parity.lockstep(CLOSE, num_battles=2, steps=300, seed=4, policy="random-fighter")
    for kind in ("MonsterFired", "MonsterStruck", "Researched", "CloseInDefence",
                 "MonsterKilled"):
        assert report.events.get(kind, 0) > 0, (kind, report.events)


def test_monster_at_the_planet_matches_the_reference():
    """The monster beside the planet and the ship: its detection shots at once, its shots at
    the planet (``Damaged``), close-in defence, battles ended as the ship leaves or dies."""
    report = parity.lockstep(AT_PLANET, num_battles=2, steps=300, seed=5)
    for kind in ("MonsterFollows", "MonsterFired", "CloseInDefence", "Damaged"):
        assert report.events.get(kind, 0) > 0, (kind, report.events)
    assert report.episodes > 0


def test_researcher_captain_matches_the_reference():
    """cth-11 itself flown by the scenario's ``researcher``: lab research at a distance,
    information probes (G5.2), the research rolls and the monster destroyed by a kill method
    found (a tractor link, PROPOSAL [P-113])."""
    report = parity.lockstep("cth-11", num_battles=1, steps=600, seed=0, policy="researcher")
    for kind in ("Researched", "ResearchRolled", "ProbeLaunched", "TractorAttached",
                 "MonsterKilled"):
        assert report.events.get(kind, 0) > 0, (kind, report.events)
    assert report.episodes == 1


@pytest.mark.slow
def test_planet_killer_long_runs_match():
    """The full runs (docs/compiled.md)."""
    print(parity.lockstep("cth-11", num_battles=4, steps=2000, seed=1).line())
    print(parity.lockstep(CLOSE, num_battles=8, steps=2000, seed=2).line())
    print(parity.lockstep(CLOSE, num_battles=8, steps=1000, seed=3,
                          policy="random-fighter").line())
    print(parity.lockstep("cth-11", num_battles=2, steps=2000, seed=4,
                          policy="researcher").line())
