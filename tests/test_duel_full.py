"""Full-size duels with rule package R7 (PROPOSAL, SCENARIOS.md §4 with the scenario-7 layout):
the standard cloak (G13), Sensor Lock-On (D6) and the D7 drone rate (FD4.21) in play.

PettingZoo's ``parallel_api_test`` / ``parallel_seed_test`` and the both-ways mask test run on
these scenarios in ``test_env_api.py`` and ``test_env_masks.py`` (parametrised over every listed
scenario); random masked play to the end runs here."""

from __future__ import annotations

import numpy as np
import pytest
from engine_helpers import play_random, random_masked_game, random_orders
from fuzz_helpers import assert_fights, fuzz_games

import sfb_env
from sfb_env import hexmap
from sfb_env.engine import make_battle
from sfb_env.engine.scenario import load_scenario

DUELS = {
    "duel-full-romulan-vs-federation": ("romulan-war-eagle", "fed-ca", "standard"),
    "duel-full-romulan-kr-vs-klingon": ("romulan-kr", "klingon-d7", "standard"),
    "duel-full-gorn-vs-klingon": ("gorn-ca", "klingon-d7", "none"),
    "duel-full-orion-vs-klingon": ("orion-raider", "klingon-d7", "standard"),
}


@pytest.mark.parametrize("name", DUELS)
def test_full_size_duel_setup_r7_rules(name):
    sc = load_scenario(name)
    assert name in sfb_env.list_scenarios()
    assert sc.impulses_per_turn == 32 and sc.map_name == "A+B" and sc.turn_limit == 8
    rules = sc.rules
    assert (rules.energy, rules.damage, rules.lock_on, rules.drone_warhead) == (
        "standard", "standard_dac", True, 12)
    cls_a, cls_b, cloak_rule = DUELS[name]
    assert rules.cloak == cloak_rule
    a, b = sc.units
    assert (a.unit_class, b.unit_class) == (cls_a, cls_b)
    assert [(u.hex, hexmap.DIRECTION_LETTERS[u.facing], u.speed) for u in sc.units] == [
        ("0216", "B", 20), ("2801", "E", 20)]  # the cth-07 layout


@pytest.mark.parametrize("name", [n for n, v in DUELS.items() if v[2] == "standard"])
def test_cloak_component_present_for_the_cloak_ship(name):
    env = sfb_env.parallel_env(name)
    env.reset(seed=0)
    names = {a: env._layouts[a].component_names() for a in env.agents}
    cloakers = [a for a, n in names.items() if "cloak" in n]
    assert cloakers == [env.agents[0]]  # side A carries the cloak


@pytest.mark.parametrize("name", DUELS)
def test_full_size_duel_fuzz_a_mixed_game_to_the_end_of_turn_2(name):
    # captains that fight (fuzz_helpers; seed 2 plays "mixed": a doctrine captain with random
    # components against random-fighter); the full coverage floors are test_fuzz.py's
    assert_fights(name, fuzz_games(name, [2], to_the_end=True, max_turns=2))


def test_g13_masked_play_announces_cloaks_during_the_turn():
    # the env's ``cloak`` component, opened by the engine's toggle predicate mid-turn
    env = sfb_env.parallel_env("duel-full-romulan-vs-federation", illegal_action="raise")
    rng = np.random.default_rng(0)
    announced = []
    for seed in range(3):
        random_masked_game(env, seed, rng)
        announced += [e for e in env.battle.events if e.kind == "CloakAnnounced"]
    assert any(e.impulse > 1 for e in announced)
    assert {e.cloaking for e in announced} == {True, False}


@pytest.mark.slow
@pytest.mark.parametrize("name", DUELS)
def test_full_size_duel_fuzz_30_seeds_to_the_end(name):
    assert_fights(name, fuzz_games(name, range(30), to_the_end=True), turns=6)


def test_g13_standard_cloak_and_d6_lock_on_happen_in_random_play():
    seen: set[str] = set()
    cloaked = False
    for seed in range(3):
        b = make_battle("duel-full-romulan-vs-federation", seed=seed, max_turns=4)
        g = np.random.default_rng(seed)
        while not b.done:
            orders = random_orders(b, g)
            if b.state.impulse in (0, 32) and 0 in orders:  # row 0: the War Eagle
                orders[0].cloak = bool(g.random() < 0.5)
            b.step(orders)
            cloaked |= bool(b.state.cloaked.any())
        seen |= {e.kind for e in b.events}
    assert cloaked and "LockOn" in seen


@pytest.mark.parametrize("name", DUELS)
def test_full_size_duels_are_deterministic(name):
    assert play_random(name, 3, max_turns=2).events == play_random(name, 3, max_turns=2).events
