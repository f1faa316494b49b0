"""PettingZoo / Gymnasium conventions of the parallel env and its clear errors (issue 13)."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from pettingzoo.test.state_test import test_parallel_env as pettingzoo_parallel_state_test

import sfb_env
from sfb_env.env import IllegalActionError


def _fly(env, obs, impulses=12):
    """A few impulses of the lowest legal choice per component; the battle's events."""
    for _ in range(impulses):
        if not env.agents:
            break
        actions = {a: _first_legal(env, a, obs[a]) for a in env.agents}
        obs, *_ = env.step(actions)
    return list(env.battle.events)


def _first_legal(env, agent, obs):
    parts = env.action_space(agent).split_mask(obs["action_mask"])
    return np.array([int(np.flatnonzero(p)[0]) for p in parts], dtype=np.int64)


def _legal(env, obs):
    agent = env.agents[0]
    return agent, _first_legal(env, agent, obs[agent])


# ------------------------------------------------------------------ seeding


def test_plain_reset_after_seeded_reset_continues_the_generator():
    env = sfb_env.parallel_env("cth-03")
    env.reset(seed=5)
    seeds = [env.battle.seed]
    for _ in range(3):
        env.reset()
        seeds.append(env.battle.seed)
    assert seeds[0] == 5 and len(set(seeds)) == 4  # no replayed dice
    again = sfb_env.parallel_env("cth-03")
    again.reset(seed=5)
    assert [again.reset() and again.battle.seed for _ in range(3)] == seeds[1:]  # reproducible


def test_seeded_reset_replays_the_same_battle():
    env = sfb_env.parallel_env("cth-03")
    obs, _ = env.reset(seed=11)
    first = [repr(e) for e in _fly(env, obs)]
    env.reset()  # another battle in between
    obs, _ = env.reset(seed=11)
    assert [repr(e) for e in _fly(env, obs)] == first


def test_constructor_seed_is_the_first_plain_reset_seed():
    env = sfb_env.parallel_env("cth-01", seed=4)
    env.reset()
    assert env.battle.seed == 4
    env.reset()
    assert env.battle.seed != 4


def test_unseeded_env_draws_recordable_battle_seeds():
    env = sfb_env.parallel_env("cth-01")
    env.reset()
    assert isinstance(env.battle.seed, int)  # a replay can record it


# ------------------------------------------------------------------ step errors


def test_step_before_reset_raises_a_clear_error():
    env = sfb_env.parallel_env("cth-01")
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
        env.step({})


@pytest.mark.parametrize("bad", ["fire", None, b"1"])
def test_non_numeric_action_is_refused_naming_the_agent(bad):
    env = sfb_env.parallel_env("cth-01")
    env.reset(seed=0)
    agent = env.agents[0]
    with pytest.raises(TypeError, match=agent):
        env.step({agent: bad})


def test_float_action_is_refused_not_truncated():
    env = sfb_env.parallel_env("cth-01")
    obs, _ = env.reset(seed=0)
    agent, action = _legal(env, obs)
    with pytest.raises(TypeError, match=f"{agent}.*float"):
        env.step({agent: action + 0.7})


def test_action_of_wrong_shape_is_refused_not_reshaped():
    env = sfb_env.parallel_env("cth-01")
    obs, _ = env.reset(seed=0)
    agent, action = _legal(env, obs)
    for bad in (action.reshape(1, -1), action[:-1], np.append(action, 0)):
        with pytest.raises(IllegalActionError, match=agent):
            env.step({agent: bad})


@pytest.mark.parametrize("form", [np.asarray, list, tuple,
                                  lambda a: a.astype(np.int32), lambda a: a.astype(np.uint8)])
def test_valid_integer_actions_keep_flying(form):
    env = sfb_env.parallel_env("cth-01")
    obs, _ = env.reset(seed=0)
    agent, action = _legal(env, obs)
    env.step({agent: form(action)})


def test_numpy_int_scalars_keep_flying():
    env = sfb_env.parallel_env("cth-01")
    obs, _ = env.reset(seed=0)
    agent, action = _legal(env, obs)
    env.step({agent: [np.int64(v) for v in action]})
    with pytest.raises(IllegalActionError, match="got shape"):
        env._as_action(agent, np.int64(3))  # one number for a many-component ship


def test_unknown_agent_key_is_refused_naming_the_live_agents():
    env = sfb_env.parallel_env("cth-01")
    obs, _ = env.reset(seed=0)
    agent, action = _legal(env, obs)
    with pytest.raises(ValueError, match="unknown agent.*destructoin") as err:
        env.step({"destructoin": action})
    assert agent in str(err.value)


def test_departed_agent_key_is_refused():
    env = sfb_env.parallel_env("cth-01")
    env.reset(seed=0)
    agent = env.agents[0]
    env.agents = [a for a in env.agents if a != agent]  # as if the ship had left
    with pytest.raises(ValueError, match="no longer in play"):
        env.step({agent: np.zeros(len(env.action_space(agent).nvec), np.int64)})


# ------------------------------------------------------------------ spaces


@pytest.mark.parametrize("space", ["action_space", "observation_space"])
def test_space_of_unknown_agent_names_the_possible_agents(space):
    env = sfb_env.parallel_env("cth-01")
    with pytest.raises(KeyError, match="nope.*possible agents") as err:
        getattr(env, space)("nope")
    assert env.possible_agents[0] in str(err.value)


def test_spaces_are_one_object_per_agent():
    env = sfb_env.parallel_env("cth-01")
    agent = env.possible_agents[0]
    assert env.action_space(agent) is env.action_space(agent)
    assert env.observation_space(agent) is env.observation_space(agent)
    assert env.state_space is env.state_space


def test_env_is_garbage_collected():
    env = sfb_env.parallel_env("cth-11")
    for agent in env.possible_agents:
        env.action_space(agent)
        env.observation_space(agent)
    env.state_space  # noqa: B018
    env.reset(seed=0)
    ref = weakref.ref(env)
    del env
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("scenario", ["cth-01", "cth-09", "cth-11"])
def test_state_space_matches_state(scenario):
    env = sfb_env.parallel_env(scenario, illegal_action="noop")
    pettingzoo_parallel_state_test(env)
    obs, _ = env.reset(seed=1)
    space = env.state_space
    for _ in range(60):
        state = env.state()
        assert state.shape == space.shape and state.dtype == space.dtype
        assert space.contains(state)
        if not env.agents:
            break
        actions = {a: env.action_space(a).sample(mask=obs[a]["action_mask"]) for a in env.agents}
        obs, *_ = env.step(actions)
