"""PettingZoo conformance of every shipped scenario: API test, seed test (DESIGN "Spaces")."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import parallel_api_test, parallel_seed_test
from pettingzoo.test.state_test import test_parallel_env as parallel_state_test
from scenario_tiers import ci_params

import sfb_env
from sfb_env.env import IllegalActionError, MaskedMultiDiscrete

SCENARIOS = sorted(sfb_env.list_scenarios())


def test_scenarios_are_listed_with_descriptions():
    listed = sfb_env.list_scenarios()
    assert {"cth-01", "cth-02", "cth-03"} <= set(listed)
    assert all(isinstance(v, str) and v for v in listed.values())


@pytest.mark.parametrize("scenario", ci_params(SCENARIOS))  # scenario_tiers: CI / slow
def test_pettingzoo_parallel_api(scenario):
    # strict: parallel_api_test samples with the mask, so no action may be refused
    parallel_api_test(sfb_env.parallel_env(scenario, illegal_action="raise"), num_cycles=1000)


@pytest.mark.parametrize("scenario", ci_params(SCENARIOS))
def test_pettingzoo_parallel_seed(scenario):
    parallel_seed_test(lambda: sfb_env.parallel_env(scenario))  # the default: noop + report


@pytest.mark.parametrize("scenario", ci_params(SCENARIOS))
def test_pettingzoo_parallel_state(scenario):
    # pettingzoo 1.27's state_test needs an AEC env too; its parallel half is this one
    parallel_state_test(sfb_env.parallel_env(scenario))


def test_metadata_is_versioned_and_parallelizable():
    env = sfb_env.parallel_env("cth-01")
    assert env.metadata["name"] == "sfb_v1"
    assert env.metadata["is_parallelizable"] is True
    assert "rgb_array" in env.metadata["render_modes"]


def test_reset_is_impulse_zero_with_only_maneuver_and_speed_open():
    env = sfb_env.parallel_env("cth-03")
    obs, infos = env.reset(seed=0)
    agent = env.agents[0]
    assert infos[agent]["impulse"] == 0 and infos[agent]["turn"] == 1
    reasons = env.mask_reasons(agent)
    for component, blocked in reasons.items():
        if component.startswith(("fire", "launch")):
            assert len(blocked) == env.target_slots  # nothing fires or launches at impulse 0


def test_flat_mask_sampling_respects_the_mask():
    space = MaskedMultiDiscrete([3, 4])
    mask = np.array([0, 1, 0, 0, 0, 0, 1], dtype=np.int8)
    for _ in range(20):
        assert space.sample(mask=mask).tolist() == [1, 3]
    with pytest.raises(ValueError, match="7"):
        space.sample(mask=np.ones(5, dtype=np.int8))


def test_flat_mask_sampling_draws_what_gymnasium_draws_from_the_tuple_mask():
    """The fast flat-mask draw gives gymnasium's values and leaves the generator where
    gymnasium leaves it (seeded runs of the suite and of users' scripts do not change),
    components with nothing allowed included."""
    rng = np.random.default_rng(0)
    for seed in range(40):
        nvec = rng.integers(1, 12, size=rng.integers(1, 20))
        ours, theirs = MaskedMultiDiscrete(nvec), spaces.MultiDiscrete(nvec)
        ours.seed(seed)
        theirs.seed(seed)
        for _ in range(20):
            flat = (rng.random(int(nvec.sum())) < rng.random()).astype(np.int8)
            got = ours.sample(mask=flat)
            assert got.tolist() == theirs.sample(mask=ours.split_mask(flat)).tolist()
            assert got.dtype == theirs.dtype
        assert ours.np_random.bit_generator.state == theirs.np_random.bit_generator.state


def test_flat_mask_with_values_other_than_0_and_1_is_refused():
    with pytest.raises(ValueError, match="0 or 1"):
        MaskedMultiDiscrete([3, 4]).sample(mask=np.array([0, 2, 0, 0, 0, 0, 1], np.int8))


def test_illegal_action_raises_naming_agent_component_value_and_rule():
    env = sfb_env.parallel_env("cth-01", illegal_action="raise")
    obs, _ = env.reset(seed=0)
    agent = env.agents[0]
    action = env.action_space(agent).sample(mask=obs[agent]["action_mask"])
    action[-2] = 0  # maneuver NONE while the ship moves on impulse 1 (speed 8)
    with pytest.raises(IllegalActionError) as err:
        env.step({agent: action})
    assert err.value.agent == agent and err.value.component == "maneuver"
    assert "C1.41" in str(err.value)


def test_illegal_action_noop_substitutes_and_reports_in_infos():
    env = sfb_env.parallel_env("cth-01", illegal_action="noop")
    obs, _ = env.reset(seed=0)
    agent = env.agents[0]
    action = env.action_space(agent).sample(mask=obs[agent]["action_mask"])
    action[-2] = 0
    _, _, _, _, infos = env.step({agent: action})
    report = infos[agent]["illegal_action"]
    assert report == [{"component": "maneuver", "value": 0, "rule": report[0]["rule"]}]
    assert report[0]["rule"].startswith("C1.41")


def test_finished_agents_leave_and_outcome_is_reported():
    env = sfb_env.parallel_env("cth-03", seed=3)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    seen = set()
    while env.agents:
        actions = {}
        for a in env.agents:
            space = env.action_space(a)
            space.seed(int(rng.integers(1 << 30)))
            actions[a] = space.sample(mask=obs[a]["action_mask"])
        obs, rewards, terms, truncs, infos = env.step(actions)
        seen |= {a for a in terms if terms[a] or truncs[a]}
    assert seen == {"destruction"}
    assert infos["destruction"]["outcome"]["result"] in ("win", "loss", "draw")


def test_sparse_reward_is_zero_until_the_end():
    env = sfb_env.parallel_env("cth-03", reward="sparse")
    obs, _ = env.reset(seed=1)
    rewards_seen = []
    while env.agents:
        a = env.agents[0]
        obs, rewards, terms, truncs, infos = env.step(
            {a: env.action_space(a).sample(mask=obs[a]["action_mask"])}
        )
        rewards_seen.append(rewards[a])
    assert all(r == 0.0 for r in rewards_seen[:-1])
    assert rewards_seen[-1] == {"win": 1.0, "loss": -1.0, "draw": 0.0}[
        infos[a]["outcome"]["result"]
    ]


def test_state_is_a_fixed_size_float_vector():
    env = sfb_env.parallel_env("cth-02")
    env.reset(seed=0)
    s0 = env.state()
    assert s0.dtype == np.float32 and s0.ndim == 1
    a = env.agents[0]
    obs = env._obs
    env.step({a: env.action_space(a).sample(mask=obs[a]["action_mask"])})
    assert env.state().shape == s0.shape


def test_uniform_spaces_pad_every_agent_to_one_space():
    duel = {
        "name": "duel", "impulses_per_turn": 8, "map": "A+B", "sides": ["fed", "kli"],
        "rules": {"speed_choice": True},
        "units": [
            {"id": "fed", "class": "fed-cadet", "side": "fed", "hex": "0505", "facing": "A",
             "speed": 8, "controller": "agent"},
            {"id": "kli", "class": "klingon-cadet", "side": "kli", "hex": "1505", "facing": "A",
             "speed": 8, "controller": "agent"},
        ],
        "victory": {"kind": "last_side_standing"},
    }
    env = sfb_env.parallel_env(duel, uniform_spaces=True)
    spaces = [env.action_space(a) for a in env.possible_agents]
    assert spaces[0].nvec.tolist() == spaces[1].nvec.tolist()
    obs_spaces = [env.observation_space(a) for a in env.possible_agents]
    assert obs_spaces[0]["observation"].shape == obs_spaces[1]["observation"].shape
    parallel_api_test(env, num_cycles=200)
    plain = sfb_env.parallel_env(duel)
    assert plain.action_space("fed").nvec.tolist() != plain.action_space("kli").nvec.tolist()
