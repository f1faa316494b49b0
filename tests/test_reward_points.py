"""The ``points`` reward (``sfb_env.env.reward.points``, ``compiled.rewards``): the step's
change in the damage-point margin a duel is decided on at its turn limit (SCENARIOS #5,
PROPOSAL [P-018]): shield and internal points on enemy ships minus those the agent's ship took,
scaled by ``DAMAGE_SCALE``, plus the end result. Drones count for nothing."""

from __future__ import annotations

import numpy as np
import pytest

import sfb_env
from agents.random_fighter import RandomFighter
from sfb_env.engine.events import Damaged
from sfb_env.engine.types import UnitKind
from sfb_env.env.reward import DAMAGE_SCALE, REWARDS, end_result

pytestmark = [pytest.mark.usefixtures("readme_backend"), pytest.mark.compiled_late]
DUEL = "grad-hydran-vs-kzinti"  # the Kzinti's drones strike shields; decided on points


def _ship_damage(env) -> dict[str, int]:
    st = env.battle.state
    return {a: int(st.damage[env.battle.unit_index[a]]) for a in env.possible_agents}


def test_points_reward_is_the_change_in_the_duels_damage_point_margin():
    """Two random fighters: each step's reward is 0.05 x (the foe ship's damage points gained
    minus the own ship's) + the result, read from the state the victory judges (st.damage),
    not from the events the reward reads."""
    env = sfb_env.parallel_env(DUEL, reward="points", backend="reference")
    on_shield_only = drone_hits = steps = differs = 0
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        captains = {a: RandomFighter(seed, components=env.action_components(a))
                    for a in env.agents}
        before = _ship_damage(env)
        while env.agents:
            actions = {a: captains[a].act(obs[a], env.action_space(a)) for a in env.agents}
            seen = len(env.battle.events)
            obs, rewards, _, _, _ = env.step(actions)
            steps += 1
            after = _ship_damage(env)
            for agent, r in rewards.items():
                foe = next(a for a in env.possible_agents if a != agent)
                margin = (after[foe] - before[foe]) - (after[agent] - before[agent])
                assert r == pytest.approx(DAMAGE_SCALE * margin + end_result(env, agent))
            before = after
            events = env.battle.events[seen:]
            shield_only_now = 0
            for e in events:
                if isinstance(e, Damaged):
                    kind = env.battle.state.kind[env.battle.unit_index[e.unit]]
                    shield_only_now += kind == UnitKind.SHIP and e.to_shield and not e.internal
                    drone_hits += kind == UnitKind.DRONE
            on_shield_only += shield_only_now
            if shield_only_now:  # ``shaped`` (internal points only) scores these otherwise
                differs += any(r != pytest.approx(REWARDS["shaped"](env, a, events))
                               for a, r in rewards.items())
        assert env.battle.state.turn >= 8  # to the turn limit: the points decide
    # what ``shaped`` leaves out and ``points`` counts: volleys the shields stopped entirely
    assert steps > 200 and on_shield_only > 0 and drone_hits > 0
    assert differs > 0


def test_points_reward_is_the_same_on_the_compiled_core():
    """Two random fighters fly a whole duel on each backend: the same observations, so the same
    orders, and the same rewards at every step."""
    envs = [sfb_env.parallel_env(DUEL, reward="points", backend=b)
            for b in ("reference", "compiled")]
    assert [sfb_env.backend_of(e) for e in envs] == ["reference", "compiled"]
    for seed in (4, 5):
        obs = [env.reset(seed=seed)[0] for env in envs]
        captains = {a: RandomFighter(seed, components=envs[0].action_components(a))
                    for a in envs[0].agents}
        scored = steps = 0
        while envs[0].agents:
            actions = {a: captains[a].act(obs[0][a], envs[0].action_space(a))
                       for a in envs[0].agents}
            (obs[0], want, *_), (obs[1], got, *_) = (env.step(actions) for env in envs)
            assert got == want
            for a in want:
                np.testing.assert_array_equal(obs[1][a]["observation"], obs[0][a]["observation"])
            scored += sum(r != 0 for r in want.values())
            steps += 1
        assert envs[1].agents == [] and steps > 100 and scored > 10
