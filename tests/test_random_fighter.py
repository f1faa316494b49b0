"""``random-fighter``: random masked orders that stay in the fight (no disengaging, on the map)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import sfb_env
from agents.random_fighter import RandomFighter, stays_on_map


def play(scenario: str, seed: int, policy: str = "random-fighter"):
    """One game with ``policy`` on every side; returns the battle and whether any action picked a
    value its mask closes."""
    env = sfb_env.parallel_env(scenario)
    obs, _ = env.reset(seed=seed)
    pilots = {}
    for k, a in enumerate(env.possible_agents):
        pilots[a] = agents.make_policy(policy)
        agents.bind_policy(pilots[a], env, a)
        pilots[a].reset(seed * 10 + k)
    masked = False
    while env.agents:
        actions = {}
        for a in env.agents:
            action = pilots[a].act(obs[a], env.action_space(a))
            mask = np.asarray(obs[a]["action_mask"]).astype(bool)
            starts = np.concatenate([[0], np.cumsum(env.action_space(a).nvec)[:-1]])
            masked |= not mask[starts + np.asarray(action)].all()
            actions[a] = action
        obs, *_ = env.step(actions)
    return env.battle, masked


@pytest.mark.parametrize("scenario", ["cth-05", "cth-10"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_fighter_fights_past_turn_one(scenario, seed):
    battle, masked = play(scenario, seed)
    events = battle.events
    assert not masked
    assert max(e.turn for e in events) >= 2
    assert any(e.kind == "Fired" for e in events)
    assert not any(e.kind == "DisengagementAnnounced" for e in events)


def test_plain_random_disengages_at_once():
    """The contrast that motivates the policy: plain random ends cth-05 in turn 1."""
    battle, _ = play("cth-05", 0, "random")
    assert max(e.turn for e in battle.events) == 1


def test_stays_on_map():
    # at the north edge facing A: straight leaves the map, a turn to C-ward (right) does not
    assert not stays_on_map((5, 5, 0, 5), 10, 10, 0, 1)
    assert stays_on_map((5, 5, 0, 5), 10, 10, 0, 6)  # tactical turn: no hex entered
    assert stays_on_map((5, 5, 0, 5), 10, 10, 3, 1)  # facing D, away from the edge
    assert not stays_on_map((0, 5, 5, 5), 10, 10, 5, 1)  # west edge facing F


def test_needs_its_components():
    env = sfb_env.parallel_env("cth-05")
    obs, _ = env.reset(seed=0)
    agent = env.agents[0]
    with pytest.raises(RuntimeError, match="bind"):
        RandomFighter(0).act(obs[agent], env.action_space(agent))
    action = RandomFighter(0, components=env.action_components(agent)).act(
        obs[agent], env.action_space(agent))
    assert env.action_space(agent).contains(action)
