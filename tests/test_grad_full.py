"""Full-size graduate duels (SCENARIOS.md §4 gt-full layout: 32 impulses, R7 standard energy,
standard DAC, lock-on): the Lyran Tiger (two ESGs), the Hydran Ranger (fighters) and the ISC
Star Cruiser (PPD, plasma-S) against the Klingon D7."""

from __future__ import annotations

import pytest
from fuzz_helpers import assert_fights, fuzz_games

import agents
import sfb_env
from sfb_env.engine.scenario import load_scenario

FULL = ["grad-lyran-full-vs-klingon", "grad-hydran-full-vs-klingon", "grad-isc-full-vs-klingon"]


@pytest.mark.parametrize("name", FULL)
def test_gt_full_layout_under_the_standard_rules(name):
    sc = load_scenario(name)
    ref = load_scenario("cth-07")  # scenario 7's set-up: 0216-B against 2801-E at speed 20
    assert sc.impulses_per_turn == 32 and sc.rules.max_speed == 31
    assert (sc.rules.energy, sc.rules.damage, sc.rules.lock_on) == (
        "standard", "standard_dac", True)
    assert [(u.hex, u.facing, u.speed) for u in sc.units] == [
        (u.hex, u.facing, u.speed) for u in ref.units]
    assert sc.units[1].unit_class == "klingon-d7"


@pytest.mark.parametrize("name", FULL)
def test_fuzz_a_mixed_game_to_the_end_of_turn_2(name):
    # captains that fight (fuzz_helpers; seed 2 plays "mixed": a doctrine captain with random
    # components against random-fighter); the full coverage floors are test_fuzz.py's
    assert_fights(name, fuzz_games(name, [2], to_the_end=True, max_turns=2))


@pytest.mark.slow
@pytest.mark.parametrize("name", FULL)
def test_fuzz_30_seeds_to_the_end(name):
    assert_fights(name, fuzz_games(name, range(30), to_the_end=True), turns=8)


def _doctrine_game(name: str, seed: int = 0):
    env = sfb_env.parallel_env(name, illegal_action="raise")
    obs, _ = env.reset(seed=seed)
    captains = {a: agents.get("doctrine") for a in env.possible_agents}
    for a, captain in captains.items():
        agents.bind_policy(captain, env, a)
        captain.reset(seed)
    while env.agents:
        obs, *_ = env.step({a: captains[a].act(obs[a], env.action_space(a)) for a in env.agents})
    return env.battle


def test_e11_21_the_star_cruiser_arms_and_fires_its_ppd_on_the_standard_form():
    battle = _doctrine_game("grad-isc-full-vs-klingon")
    ppd_shots = [e for e in battle.events
                 if e.kind == "Fired" and e.weapon_type == "ppd" and e.unit == "lawgiver"]
    assert ppd_shots  # paid 4 + 4 over two turns by the standing allocation (E11.21)


def test_g23_the_tiger_announces_its_generators_on_the_standard_form():
    battle = _doctrine_game("grad-lyran-full-vs-klingon")
    announced = {e.generator for e in battle.events if e.kind == "EsgAnnounced"}
    assert announced  # charged at the start (G23.23), announced by the Lyran doctrine
