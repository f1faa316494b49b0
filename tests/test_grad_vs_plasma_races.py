"""Graduate cadet duels against the plasma races (SCENARIOS.md §4: each graduate race against
every other cadet race): the Lyran, Hydran and ISC cadets against the Romulan (plasma-S, cadet
cloak, G13.0) and the Gorn (plasma-F), on the gt-cadet layout under R1-R6 (B3.0, D4.2)."""

from __future__ import annotations

import pytest
from fuzz_helpers import assert_fights, fuzz_games

import agents
import sfb_env
from sfb_env.engine.scenario import load_scenario

GRAD = ("lyran", "hydran", "isc")
PLASMA = ("romulan", "gorn")
NAMES = [f"grad-{a}-vs-{b}" for a in GRAD for b in PLASMA]


def test_every_graduate_race_has_a_duel_against_each_plasma_race():
    assert set(NAMES) <= set(sfb_env.list_scenarios())


@pytest.mark.parametrize("name", NAMES)
def test_setup_is_the_gt_cadet_layout_with_the_cloak_only_where_a_romulan_flies(name):
    sc = load_scenario(name)
    layout = load_scenario("duel-gorn-vs-klingon")  # the gt-cadet duel of the cadet races
    assert (sc.impulses_per_turn, sc.map_name, sc.turn_limit, sc.victory) == (
        layout.impulses_per_turn, layout.map_name, layout.turn_limit, layout.victory)
    assert [(u.hex, u.facing, u.speed) for u in sc.units] == [
        (u.hex, u.facing, u.speed) for u in layout.units]
    romulan = name.endswith("romulan")
    assert sc.rules.cloak == ("cadet" if romulan else "none")
    assert sc.rules.energy == "cadet" and sc.rules.damage == "cadet_dac"


@pytest.mark.parametrize("name", NAMES)
def test_the_plasma_ship_launches_and_the_romulan_may_cloak(name):
    env = sfb_env.parallel_env(name)
    foe = env.possible_agents[1]
    names = [c["name"] for c in env.action_components(foe)]
    launchers = [c for c in env.action_components(foe) if c["kind"] == "launch"]
    assert launchers and all(c["weapon_type"].startswith("plasma") for c in launchers)
    assert ("cloak" in names) == name.endswith("romulan")


@pytest.mark.parametrize("name", NAMES)
def test_fuzz_2_seeds_to_the_end_of_turn_2(name):
    # captains that fight (fuzz_helpers); the full coverage floors are test_fuzz.py's
    assert_fights(name, fuzz_games(name, range(2), to_the_end=True, max_turns=2))


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_fuzz_100_seeds_to_the_end(name):
    assert_fights(name, fuzz_games(name, range(100), to_the_end=True), turns=8)


@pytest.mark.parametrize("name", NAMES)
def test_doctrine_captains_fly_both_ships_within_the_mask(name):
    env = sfb_env.parallel_env(name, illegal_action="raise")
    obs, _ = env.reset(seed=0)
    captains = {a: agents.get("doctrine") for a in env.possible_agents}
    for a, captain in captains.items():
        agents.bind_policy(captain, env, a)
        captain.reset(0)
    while env.agents:
        actions = {a: captains[a].act(obs[a], env.action_space(a)) for a in env.agents}
        obs, *_ = env.step(actions)  # "raise": a masked choice would stop the game
    assert env.battle.done and env.battle.outcome
    assert {e.kind for e in env.battle.events} & {"Fired", "Launched"}  # they fought
