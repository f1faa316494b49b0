"""Planets (P2.0) and scenario 9's survivors on the compiled core (``compiled.planets``): the
line of fire through a planet hex and the moves into one against ``engine.planets``, the
``rescue`` verdict against ``engine.victory`` on constructed endings, and Rescue at Rigel
without its suicide shuttles (J2.22: planets alone; cth-09 itself in
``tests/test_compiled_suicide_shuttles.py``) in lockstep, with random play and with the
scenario's captains, who land shuttles on the planet, lift the survivors and carry them home."""

from __future__ import annotations

import numpy as np
import pytest

from sfb_env.compiled import ending, layout, parity, planets, tiers
from sfb_env.engine import planets as ref
from sfb_env.engine import victory
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import parse_scenario
from sfb_env.engine.types import ACTIVE, DESTROYED, DISENGAGED, K_SHIP, Maneuver

pytestmark = pytest.mark.compiled_late  # after the core is built, on either xdist worker

# cth-09 without its suicide shuttles (J2.22): planets, survivors, shuttles, transporters,
# tractors and boarding parties together, the rescue verdict
RESCUE = parity.variant("cth-09", rules={"suicide_shuttles": False})


# the rescuer starting at 1610, facing A at speed 4, three hexes below Rigel: random play sends
# shuttles that land there and lift the survivors, ships and drones crash into the planet,
# tractors hold shuttles
NEAR = parity.variant("cth-09", rules={"suicide_shuttles": False})
for _unit in NEAR["units"]:
    if _unit["id"] == "rescuer":
        _unit.update({"hex": "1610", "facing": "A", "speed": 4})
NEAR["name"] += ",rescuer=1610"


def _battle(doc: dict = RESCUE):
    return make_battle(parse_scenario(doc, doc["name"]), seed=0)


def test_rescue_without_suicide_shuttles_is_compiled():
    """The variant of cth-09 without its suicide shuttles (planets alone) is the compiled
    core's too (``tests/test_compiled_suicide_shuttles.py``: cth-09 itself)."""
    assert tiers.missing(_battle().setup) == []


def test_p2_0_line_of_fire_through_a_planet_hex_matches_the_reference():
    """(P2.0) From hexes within 6 of the planet hex to every other: blocked into, out of and
    through the hex, not through a corner (two of its neighbours side by side see each other);
    ``planets.crosses_hex`` and ``line_blocked`` give the reference's on every line."""
    battle = _battle()
    pt = planets.planet_tables(battle.setup)
    (px, pz), = battle.planet_hexes
    near = [(px + dx, pz + dz) for dx in range(-6, 7) for dz in range(-6, 7)
            if max(abs(dx), abs(dz), abs(dx + dz)) <= 6]
    blocked = 0
    for x0, z0 in near[::3]:
        for x1, z1 in near:
            want = bool(ref.line_blocked(battle, [x0], [z0], [x1], [z1])[0])
            assert planets.line_blocked(pt, x0, z0, x1, z1) == want, (x0, z0, x1, z1)
            assert planets.crosses_hex(x0, z0, x1, z1, px, pz) == bool(
                ref.crosses_hex(x0, z0, x1, z1, px, pz)[0]), (x0, z0, x1, z1)
            blocked += want
    assert 100 < blocked < len(near[::3]) * len(near) - 100
    (ax, az), (bx, bz) = ((px + planets.DX[d], pz + planets.DZ[d]) for d in (0, 1))
    assert not planets.line_blocked(pt, ax, az, bx, bz)  # through the planet's corner


def test_p2_0_ship_moves_into_a_planet_hex_are_closed_unless_it_has_no_other():
    """(P2.0, PROPOSAL [P-036]) A ship facing the planet with its turns open may not go
    straight; with the turn mode unmet, straight (its only move) stays open."""
    battle = _battle()
    pt = planets.planet_tables(battle.setup)
    (px, pz), = battle.planet_hexes
    x, z = px, pz + 1  # the hex below the planet, facing A (up)
    open_turns = 1 << int(Maneuver.NONE)
    assert planets.entering_bits(pt, x, z, 0, open_turns) == 1 << int(Maneuver.STRAIGHT)
    only_straight = open_turns | (1 << int(Maneuver.TURN_LEFT)) | (1 << int(Maneuver.TURN_RIGHT))
    assert planets.entering_bits(pt, x, z, 0, only_straight) == 0
    assert planets.entering_bits(pt, x, z, 3, open_turns) == 0  # facing away


def test_scenario_9_rescue_verdict_matches_the_reference():
    """(SCENARIOS #9, PROPOSAL [P-022]) On 300 constructed endings (each ship in play, left,
    destroyed or captured, the survivors on the planet, a shuttle or a ship, destroyed with
    it or not): the compiled verdict's results equal ``victory.evaluate``'s."""
    battle = _battle()
    et = ending.end_tables(battle.setup)
    rng = np.random.default_rng(9)
    ships = np.flatnonzero(battle.state.kind == K_SHIP)
    rigel = battle.unit_index["rigel"]
    shuttle = battle.unit_index["rescuer.shuttle-1"]
    seen = set()
    for _ in range(300):
        mine = battle.copy()
        st = mine.state
        for u in ships:
            st.status[u] = rng.choice([ACTIVE, ACTIVE, DISENGAGED, DESTROYED])
            st.captured_by[u] = rng.choice([-1, -1, -1, 1 - int(st.side[u])])
        holder = int(rng.choice([rigel, shuttle, *ships]))
        st.crew_units[rigel] = 0
        st.crew_units[holder] = 1
        if holder == shuttle:
            st.status[shuttle] = rng.choice([ACTIVE, DESTROYED])
        for time_up in (False, True):
            want = victory.evaluate(mine, time_up)
            code = ending.verdict(layout.pack([st]), et, 0, time_up)
            if want is None:
                assert code == ending.GOES_ON
                continue
            results = ending.outcome_results(code, len(battle.scenario.sides))
            assert results == [want[0][s]["result"] for s in battle.scenario.sides], want
            seen.add(want[0]["federation"]["level"])
    assert {"rescue", "survivors killed", "opponent left", "no rescue"} <= seen


def test_rescue_random_play_matches_the_reference():
    """Random masked play at B=1 and the fighting captains batched with autoreset."""
    report = parity.lockstep(RESCUE, num_battles=1, steps=250, seed=1, autoreset=False)
    assert report.steps == 250 and report.episodes >= 1
    report = parity.lockstep(RESCUE, num_battles=4, steps=80, seed=2, policy="random-fighter")
    assert report.events.get("Fired", 0) > 0


def test_rescue_captains_lift_the_survivors_as_on_the_reference():
    """The scenario's captains (``rescuer``, ``rescue-opponent``): the rescuer flies to Rigel
    and lifts the survivors, the opponent fights it; both engines alike, step by step."""
    report = parity.lockstep(RESCUE, num_battles=2, steps=700, seed=3,
                             policy="rescuer,rescue-opponent")
    assert report.events.get("Transported", 0) + report.events.get("CrewLifted", 0) > 0
    assert report.events.get("Fired", 0) > 0


def test_rescue_near_rigel_lands_lifts_and_crashes_as_on_the_reference():
    """(P2.0, CTH-DATA §12.4, J1.0, G7.0) With the rescuer near Rigel, random play lands
    shuttles on the planet and lifts the survivors (``CrewLifted``), brings them home
    (``Landed``), crashes ships and drones into the planet (``PlanetCrash``) and tractors
    shuttles: no difference."""
    report = parity.lockstep(NEAR, num_battles=4, steps=300, seed=4)
    for kind in ("CrewLifted", "Landed", "PlanetCrash", "TractorAttached", "Transported"):
        assert report.events.get(kind, 0) > 0, kind


@pytest.mark.slow
@pytest.mark.parametrize("doc", [RESCUE, NEAR], ids=["rescue", "near"])
def test_rescue_long_runs_match(doc):
    """The full runs (docs/compiled.md): 10,000 random masked steps at B=1, B=64 of the
    fighting captains with autoreset, 20 x 500 steps of the scenario's captains."""
    print(parity.lockstep(doc, num_battles=1, steps=10_000, seed=11, autoreset=False).line())
    print(parity.lockstep(doc, num_battles=64, steps=400, seed=12,
                          policy="random-fighter").line())
    print(parity.lockstep(doc, num_battles=20, steps=500, seed=13,
                          policy="rescuer,rescue-opponent").line())
