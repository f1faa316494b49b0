"""A shipped captain never crashes on a legal state (issue 11): the doctrine captain flying with
a few random components (the fuzzing that reaches the game) in the TAC scenarios, where the
speed component's values past the maximum speed are TAC plots (C5.23)."""

from __future__ import annotations

import numpy as np
import pytest

import sfb_env
from agents import make_policy
from agents.base import bind_policy
from agents.bridge import ShipLayout, nearest_speed


def _play(scenario: str, seed: int, p_random: float = 0.2, max_turns: int = 2) -> dict:
    env = sfb_env.parallel_env(scenario, max_turns=max_turns)
    obs, _ = env.reset(seed=seed)
    policies = {a: make_policy("doctrine") for a in env.possible_agents}
    for k, (a, p) in enumerate(policies.items()):
        p.reset(seed=seed + k)
        bind_policy(p, env, a)
    rng = np.random.default_rng(seed)
    seen = {"steps": 0, "fired": 0, "turn": 0}
    while env.agents:
        actions = {}
        for a in env.agents:
            act = np.array(policies[a].act(obs[a], env.action_space(a)))
            mask, nvec = obs[a]["action_mask"], env.action_space(a).nvec
            bounds = np.concatenate([[0], np.cumsum(nvec)])
            kinds = [c["kind"] for c in env.action_components(a)]
            for i in range(len(nvec)):  # a captain that fights: it never announces leaving
                if kinds[i] != "disengage" and rng.random() < p_random:
                    act[i] = rng.choice(np.flatnonzero(mask[bounds[i]:bounds[i + 1]]))
            actions[a] = act
        before = len(env.battle.events)
        obs, *_ = env.step(actions)
        seen["steps"] += 1
        seen["fired"] += sum(e.kind == "Fired" for e in env.battle.events[before:])
        seen["turn"] = int(env.battle.state.turn)
    return seen


@pytest.mark.parametrize("scenario", ["cth-10", "cth-12", "cth-13"])
def test_doctrine_with_random_components_plays_tac_scenarios_to_the_end(scenario):
    seen = [_play(scenario, seed) for seed in (3, 4)]
    assert max(s["turn"] for s in seen) >= 2  # play reached turn 2 (coverage)
    assert sum(s["fired"] for s in seen) > 0


def test_c5_23_the_captains_max_speed_excludes_the_tac_plot_values():
    env = sfb_env.parallel_env("cth-12")
    env.reset(seed=0)
    agent = env.agents[0]
    layout = ShipLayout.from_components(env.action_components(agent))
    assert layout.max_speed == env.battle.rules.max_speed == 31


def test_the_nearest_speed_is_a_speed_unless_only_tac_plots_are_open():
    assert nearest_speed({0, 10, 31, 32, 33}, want=35, max_speed=31) == 31
    assert nearest_speed({32, 34}, want=20, max_speed=31) == 32
    assert nearest_speed(set(), want=20, max_speed=31) == 0
