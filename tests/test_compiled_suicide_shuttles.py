"""Suicide shuttles (J2.22-J2.222) on the compiled core (``compiled.suicide_shuttles``): cth-09,
Rescue at Rigel, is the compiled core's; its bombs are armed over three turns on the standard
form, held, launched at the enemy, fly as drones and strike, as on the reference, step by step
(``parity.lockstep``)."""

from __future__ import annotations

import numpy as np
import pytest

import sfb_env
from sfb_env.compiled import parity, suicide_shuttles, tiers
from sfb_env.engine.battle import make_battle
from sfb_env.engine.scenario import load_scenario, parse_scenario

pytestmark = pytest.mark.compiled_late  # after the core is built, on either xdist worker

# cth-09 with the ships three hexes apart below Rigel, slow: the bombs armed over the first
# three turns are launched at a target in reach and strike it
CLOSE = parity.variant("cth-09")
for _unit in CLOSE["units"]:
    if _unit["id"] == "rescuer":
        _unit.update({"hex": "1610", "facing": "A", "speed": 4})
    if _unit["id"] == "opponent":
        _unit.update({"hex": "1613", "facing": "A", "speed": 4})
CLOSE["name"] += ",close"


def test_cth_09_is_played_by_the_compiled_core():
    """cth-09 flips to the compiled core (``backend="auto"``): every rule of it is ported."""
    assert tiers.missing(make_battle(load_scenario("cth-09")).setup) == []
    assert "cth-09" in tiers.compiled_scenarios()
    assert sfb_env.backend_of(sfb_env.parallel_env("cth-09", backend="auto")) == "compiled"


def test_j2_221_suicide_tables_list_each_ships_shuttles():
    """The shuttles a bomb may go on ([P-073]: the last aboard first) and the ships the
    standard form governs (both agents' ships; the planet and the craft not)."""
    battle = make_battle(load_scenario("cth-09"))
    t = suicide_shuttles.suicide_tables(battle.setup)
    fed, kl = battle.unit_index["rescuer"], battle.unit_index["opponent"]
    assert t.on
    assert [battle.unit_ids[f] for f in t.shuttles[fed] if f >= 0] == [
        f"rescuer.shuttle-{i}" for i in range(1, 5)]
    assert [battle.unit_ids[f] for f in t.shuttles[kl] if f >= 0] == [
        "opponent.shuttle-1", "opponent.shuttle-2"]
    assert np.flatnonzero(t.governed).tolist() == sorted([fed, kl])


def test_suicide_shuttles_refused_beside_a_cloak():
    """(G13) The cloak's launch and target blockers are not ported beside the bombs: the
    tables refuse, naming the rule, and the battle stays on the reference."""
    doc = parity.variant("cth-09", rules={"cloak": "cadet"})
    setup = make_battle(parse_scenario(doc, doc["name"])).setup
    with pytest.raises(NotImplementedError, match="G13"):
        suicide_shuttles.suicide_tables(setup)
    assert any("G13" in why for why in tiers.missing(setup))


def test_bombs_armed_launched_and_striking_match_the_reference():
    """Random masked play with the ships close: bombs armed (J2.221), held, let go, launched
    (J2.22) and striking (J2.222) alike on both engines."""
    report = parity.lockstep(CLOSE, num_battles=4, steps=500, seed=5)
    for kind in ("SuicideShuttleArmed", "SuicideShuttleDeactivated", "Launched(suicide)",
                 "SeekingHit(suicide)", "CrewLifted"):
        assert report.events.get(kind, 0) > 0, kind


@pytest.mark.slow
def test_bombs_long_runs_match():
    """The full runs (docs/compiled.md): 10,000 random masked steps at B=1 and B=64 of the
    fighting captains with autoreset, the ships close."""
    print(parity.lockstep(CLOSE, num_battles=1, steps=10_000, seed=11, autoreset=False).line())
    print(parity.lockstep(CLOSE, num_battles=64, steps=400, seed=12,
                          policy="random-fighter").line())
