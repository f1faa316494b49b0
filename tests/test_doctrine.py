"""Race doctrine captains (issue 5): registry, what they read, determinism, legal play.

A captain may read only its observation, its action mask and the static action-component
description; these tests hand it the components through a stub that offers nothing else, then
fly it in a separately built env.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import agents
import sfb_env
from agents import bench
from agents.doctrine import DOCTRINES, DoctrineCaptain, doctrine_for_weapons
from agents.observation_view import decode

RACE_DUEL = {
    "klingon": ("duel-klingon-vs-federation", "klingon-cadet"),
    "federation": ("duel-federation-vs-kzinti", "fed-cadet"),
    "kzinti": ("duel-kzinti-vs-orion", "kzinti-cadet"),
    "orion": ("duel-klingon-vs-orion", "orion-cadet"),
}


class ComponentsOnly:
    """Offers ``action_components`` and nothing else: a captain must not need more."""

    def __init__(self, components):
        self._components = components

    def action_components(self, agent):
        return self._components


def fly(scenario: str, agent: str, captain, seed: int) -> list[list[int]]:
    """One game: ``captain`` flies ``agent``, random-masked policies the rest; returns the
    captain's actions after checking each against its mask."""
    env = sfb_env.parallel_env(scenario)
    obs, _ = env.reset(seed=seed)
    captain.reset(seed)
    others = {a: agents.RandomMaskedPolicy(seed + 1) for a in env.possible_agents if a != agent}
    taken = []
    while env.agents:
        actions = {}
        for a in env.agents:
            if a == agent:
                action = captain.act(obs[a], env.action_space(a))
                bench.check_action("captain", a, env, action, obs[a]["action_mask"])
                taken.append([int(v) for v in action])
            else:
                action = others[a].act(obs[a], env.action_space(a))
            actions[a] = action
        obs, *_ = env.step(actions)
    return taken


def test_registry_names_and_get_alias():
    assert agents.get is agents.make_policy
    for race in DOCTRINES:
        assert isinstance(agents.get(f"{race}-doctrine"), DoctrineCaptain)
    assert isinstance(agents.get("doctrine"), DoctrineCaptain)
    assert agents.get("robot").is_robot


@pytest.mark.parametrize("race", sorted(RACE_DUEL))
def test_race_is_recognised_from_the_ship_weapons(race):
    scenario, agent = RACE_DUEL[race]
    env = sfb_env.parallel_env(scenario)
    types = [c["weapon_type"] for c in env.action_components(agent) if "weapon_type" in c]
    assert doctrine_for_weapons(types).race == race
    captain = agents.get("doctrine")
    captain.bind(env, agent)
    assert captain.doctrine.race == race


@pytest.mark.parametrize("race", sorted(RACE_DUEL))
def test_captain_reads_only_observation_mask_and_components(race):
    scenario, agent = RACE_DUEL[race]
    components = sfb_env.parallel_env(scenario).action_components(agent)
    captain = agents.get(f"{race}-doctrine")
    captain.bind(ComponentsOnly(components), agent)  # nothing but the static description
    actions = fly(scenario, agent, captain, seed=3)  # a fresh env it has never seen
    assert len(actions) > 8


@pytest.mark.parametrize("race", ["klingon", "federation"])
def test_captain_is_deterministic_for_a_seed(race):
    scenario, agent = RACE_DUEL[race]
    components = sfb_env.parallel_env(scenario).action_components(agent)
    first = fly(scenario, agent, DoctrineCaptain(race, components=components), seed=7)
    second = fly(scenario, agent, DoctrineCaptain(race, components=components), seed=7)
    assert first == second


def test_captain_without_components_says_so():
    env = sfb_env.parallel_env("duel-klingon-vs-federation")
    obs, _ = env.reset(seed=0)
    with pytest.raises(RuntimeError, match="bind"):
        agents.get("klingon-doctrine").act(obs["klingon-cadet"],
                                            env.action_space("klingon-cadet"))


def test_observation_view_decodes_the_duel_start():
    env = sfb_env.parallel_env("duel-klingon-vs-federation")
    obs, _ = env.reset(seed=0)
    components = env.action_components("klingon-cadet")
    n_weapons = sum(c["kind"] in ("launch", "fire") for c in components)
    view = decode(obs["klingon-cadet"]["observation"], n_weapons, env.target_slots, 8)
    assert (view.own.column, view.own.row, view.own.facing, view.own.speed) == (7, 12, 1, 8)
    assert view.own.edges == (6, 21, 11, 4)  # west, east, north, south of 0712 on A+B
    assert view.clock.impulse == 0 and view.clock.impulses_per_turn == 8
    (target,) = view.targets
    assert target.kind == "ship" and target.range == 14  # 2105, bow to bow
    assert target.bearing == pytest.approx(0.0, abs=1e-6)
    assert target.relative_facing == 3 and target.shields_toward_us == (1,)
    assert view.weapons[0].drones_left == 4 and not view.threats


def test_klingon_captain_beats_random_in_its_duel():
    # random-fighter: plain random flies off the map within a turn or two (issue 13)
    matches = [bench.Match("duel-klingon-vs-federation", "klingon-doctrine", "random-fighter")]
    games = bench.run_games(bench.plan_games(matches, games=3, seed=0), progress=False)
    assert sum(g.result == "win" for g in games) >= 2
    assert np.mean([g.damage_dealt - g.damage_taken for g in games]) > 0
    assert not math.isnan(games[0].turns)


def test_e2_151_hydran_captain_flies_with_the_phaser_g_shot_components():
    """sfb_v1: the Hydran's phaser-G has ``gatling[0].shot2..shot4``; the doctrine captain
    flies legally with them and holds the extra shots (one phaser-G shot an impulse)."""
    scenario, agent = "grad-hydran-vs-klingon", "hydran-cadet"
    components = sfb_env.parallel_env(scenario).action_components(agent)
    shots = [i for i, c in enumerate(components) if c["kind"] == "gatling"]
    assert [components[i]["name"] for i in shots] == [
        "gatling[0].shot2", "gatling[0].shot3", "gatling[0].shot4"]
    captain = agents.get("hydran-doctrine")
    captain.bind(ComponentsOnly(components), agent)
    actions = fly(scenario, agent, captain, seed=2)  # every action checked against its mask
    assert len(actions) > 8
    assert all(action[i] == 0 for action in actions for i in shots)
