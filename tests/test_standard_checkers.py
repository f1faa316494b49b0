"""The standard checkers of PettingZoo, Gymnasium and SB3 pass on the envs as README builds them
(issue 13, "What a new user trips over"): unmasked sampling, the state space's bounds, the
observation's bounds (no value is ever clipped), the AEC and Gymnasium entry points, and the
SuperSuit decision."""

from __future__ import annotations

import inspect
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import tomllib
from conftest import require
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test
from pettingzoo.test.state_test import test_parallel_env as pettingzoo_parallel_state_test

import sfb_env
from sfb_env.env import SINGLE_ID, IllegalActionError, SFBParallelEnv, UnknownAgentError
from sfb_env.env import observation as obs_mod
from sfb_env.env.single import SingleAgentEnv
from sfb_env.replay import load_replay, make_env

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"

# the default backend (auto); run after the core is built (tests/conftest.py)
pytestmark = [pytest.mark.usefixtures("readme_backend"), pytest.mark.compiled_late]


def readme_env(**options):
    """The env exactly as README's "The environment" builds it."""
    return sfb_env.parallel_env(scenario="cth-03", **options)


def unmasked_play(env, seed: int, steps: int):
    """``steps`` impulses of actions sampled WITHOUT the mask; the infos of every step."""
    env.reset(seed=seed)
    for a in env.possible_agents:
        env.action_space(a).seed(seed)
    seen = []
    for _ in range(steps):
        if not env.agents:
            break
        *_, infos = env.step({a: env.action_space(a).sample() for a in env.agents})
        seen.append(infos)
    return seen


# ------------------------------------------------------------------ 1. unmasked sampling


def test_default_illegal_action_is_noop_and_raise_stays_available():
    default = inspect.signature(SFBParallelEnv).parameters["illegal_action"].default
    assert default == "noop"
    assert readme_env().illegal_action == "noop"
    strict = readme_env(illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        for _ in range(20):
            strict.step({a: strict.action_space(a).sample() for a in strict.agents})


def test_pettingzoo_parallel_seed_test_passes_on_the_readme_env():
    parallel_seed_test(readme_env)


def test_unmasked_actions_are_replaced_by_the_noop_and_reported_in_infos():
    env = readme_env()
    reports = [line for infos in unmasked_play(env, seed=3, steps=40)
               for info in infos.values() for line in info.get("illegal_action", [])]
    assert reports, "random unmasked values should meet the mask"
    names = set(env._layouts["destruction"].component_names())
    for line in reports:
        assert set(line) == {"component", "value", "rule"}
        assert line["component"] in names and isinstance(line["value"], int)
        assert isinstance(line["rule"], str) and line["rule"]


def test_a_replaced_value_flies_exactly_as_the_components_noop():
    env, twin = readme_env(), readme_env()
    obs, _ = env.reset(seed=1)
    twin.reset(seed=1)
    agent = "destruction"
    layout = env._layouts[agent]
    action = env.action_space(agent).sample(mask=obs[agent]["action_mask"])
    parts = env.action_space(agent).split_mask(obs[agent]["action_mask"])
    k = next(i for i, part in enumerate(parts) if not part.all())  # one with a masked value
    action[k] = int(np.flatnonzero(parts[k] == 0)[0])
    *_, infos = env.step({agent: action})
    fixed = action.copy()
    fixed[k] = layout.noop(twin.battle)[k]
    twin.step({agent: fixed})
    assert infos[agent]["illegal_action"][0]["component"] == layout.component_names()[k]
    assert [repr(e) for e in env.battle.events] == [repr(e) for e in twin.battle.events]


def test_a_replay_of_unmasked_play_records_the_actions_as_flown_and_reruns_strictly(tmp_path):
    from sfb_env.replay import ReplayRecorder, rerun

    env = readme_env(max_turns=2)
    path = tmp_path / "unmasked.jsonl"
    replaced = 0
    with ReplayRecorder(path, env, "cth-03", seed=4, env_options={"max_turns": 2}) as rec:
        rec.reset()
        env.action_space("destruction").seed(4)
        while env.agents:
            *_, infos = rec.step({a: env.action_space(a).sample() for a in env.agents})
            replaced += sum(len(i.get("illegal_action", [])) for i in infos.values())
    assert replaced
    replay = load_replay(path)
    assert make_env(replay).illegal_action == "raise"
    for _ in rerun(replay):  # raises ReplayError at the first difference
        pass


def test_gymnasium_check_env_passes_on_the_single_ship_view():
    from gymnasium.utils.env_checker import check_env

    check_env(SingleAgentEnv("cth-03"), skip_render_check=True)


def test_sb3_check_env_passes_on_the_single_ship_view():
    require("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    check_env(SingleAgentEnv("cth-03"))


# ------------------------------------------------------------------ 2. PettingZoo tests, state


@pytest.mark.parametrize("scenario", ["cth-03", "cth-11"])
def test_pettingzoo_parallel_api_and_state_tests_pass_with_the_default_options(scenario):
    parallel_api_test(sfb_env.parallel_env(scenario), num_cycles=300)
    pettingzoo_parallel_state_test(sfb_env.parallel_env(scenario))


@pytest.mark.parametrize("scenario", ["cth-03", "cth-08", "cth-09", "cth-11", "cth-12",
                                      "grad-lyran-vs-hydran"])
def test_state_space_bounds_are_finite_and_hold_up_to_the_turn_limit(scenario):
    env = sfb_env.parallel_env(scenario, max_turns=2)
    space = env.state_space
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    obs, _ = env.reset(seed=2)
    while True:
        state = env.state()
        outside = np.flatnonzero((state < space.low) | (state > space.high))
        assert not len(outside), f"state entries {outside.tolist()}: {state[outside]}"
        if not env.agents:
            break
        obs, *_ = env.step({a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                            for a in env.agents})
    assert env.battle.done


# ------------------------------------------------------------------ 3. no clipping


def assert_within_bounds(env, obs, where: str) -> None:
    """Every raw value of every agent's observation lies in the declared space (the env no
    longer clips the vector, so the returned vector is the encoder's own)."""
    for agent, o in obs.items():
        box = env.observation_space(agent)["observation"]
        vec = o["observation"]
        outside = np.flatnonzero((vec < box.low) | (vec > box.high))
        assert not len(outside), f"{where} {agent}: entries {outside.tolist()} = {vec[outside]}"


GOLDEN_FILES = [p for p in sorted(GOLDEN.glob("*.jsonl")) + sorted(GOLDEN.glob("sfb_v1/*.jsonl"))
                if p.name.rsplit("-s", 1)[0] not in ("grad-lyran-vs-hydran",
                                                     "grad-hydran-vs-romulan",
                                                     "grad-isc-full-vs-hydran")
                or p.parent.name == "sfb_v1"]
GOLDEN_S0 = [p for p in GOLDEN_FILES if p.stem.endswith("-s0")]


@pytest.mark.parametrize("path", GOLDEN_S0, ids=[p.stem for p in GOLDEN_S0])
def test_no_observation_value_leaves_its_bounds_in_the_golden_battles(path):
    replay = load_replay(path)
    env = make_env(replay)
    obs, _ = env.reset(seed=replay.seed)
    assert_within_bounds(env, obs, "reset")
    for k, step in enumerate(replay.steps, start=1):
        obs, *_ = env.step({a: np.asarray(v, dtype=np.int64) for a, v in step.actions.items()})
        assert_within_bounds(env, obs, f"step {k}")


@pytest.mark.parametrize("scenario", ["cth-11", "cth-08", "cth-09", "cth-10",
                                      "grad-hydran-full-vs-klingon"])
def test_no_observation_value_leaves_its_bounds_in_random_play(scenario):
    env = sfb_env.parallel_env(scenario, max_turns=3)
    for seed in (0, 1):
        obs, _ = env.reset(seed=seed)
        assert_within_bounds(env, obs, "reset")
        while env.agents:
            obs, *_ = env.step({a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                                for a in env.agents})
            assert_within_bounds(env, obs, f"turn {env.battle.state.turn}")


def test_a_planet_killer_damaged_far_past_its_strength_reads_1_not_more():
    # (reaches into ``env.battle``: the reference engine's state; cth-11 is compiled under auto)
    env = sfb_env.parallel_env("cth-11", backend="reference")
    env.reset(seed=0)
    battle = env.battle
    pk = battle.unit_index["planet-killer"]
    battle.state.damage[pk] = 87 * max(1, int(battle.initial.strength[pk]))  # the 21.75 report
    agent = env.agents[0]
    env._observe()
    obs = env.observe(agent)
    assert_within_bounds(env, {agent: obs}, "after the damage")
    layout = env._layouts[agent]
    where = obs_mod.placement(layout, env.threat_slots)
    rows = [r for r in range(len(env._slots[agent])) if env._slots[agent][r] == pk]
    assert rows, "the planet killer should hold a target slot"
    assert float(where.read(obs["observation"], "targets", row=rows[0])["damage"][0]) == 1.0
    assert float(obs_mod.global_state(battle, env.max_turns).max()) <= env.state_space.high.max()


def test_own_internal_damage_past_the_internal_boxes_reads_1_not_more():
    # (reaches into ``env.battle``: the reference engine's state; cth-07 is compiled under auto)
    env = sfb_env.parallel_env("cth-07", backend="reference")
    env.reset(seed=0)
    agent = env.agents[0]
    u = env.battle.unit_index[agent]
    env.battle.state.internal[u] = int(env.battle.initial.internal_boxes[u] * 1.07) + 1
    env._observe()
    obs = env.observe(agent)
    assert_within_bounds(env, {agent: obs}, "after the damage")
    where = obs_mod.placement(env._layouts[agent], env.threat_slots)
    assert float(where.read(obs["observation"], "own")["internal"][0]) == 1.0


# ------------------------------------------------------------------ 4. entry points


def test_aec_env_passes_pettingzoo_api_test():
    env = sfb_env.env("cth-03")
    assert env.metadata["name"] == "sfb_v1"
    api_test(env, num_cycles=300)


def test_raw_env_is_the_aec_env_without_wrappers_and_passes_api_test():
    from pettingzoo.utils.conversions import parallel_to_aec_wrapper
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    raw = sfb_env.raw_env("cth-10")
    assert isinstance(raw, parallel_to_aec_wrapper)
    wrapped = sfb_env.env("cth-10")
    assert isinstance(wrapped, OrderEnforcingWrapper)
    assert isinstance(wrapped.env, parallel_to_aec_wrapper)
    api_test(raw, num_cycles=60)


def test_env_package_stays_a_package_while_callable():
    import sfb_env.env.parallel as parallel_module
    from sfb_env.env import parallel_env

    assert sfb_env.env.parallel_env is parallel_env
    assert parallel_module.SFBParallelEnv is SFBParallelEnv
    assert callable(sfb_env.env)


def test_gymnasium_make_builds_the_registered_single_ship_view():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(SINGLE_ID, scenario="cth-03")
    assert SINGLE_ID == "sfb_env/Single-v1"
    assert env.spec is not None and env.spec.id == SINGLE_ID
    assert env.spec.kwargs == {"scenario": "cth-03"}
    assert isinstance(env.unwrapped, SingleAgentEnv)
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("space", ["action_space", "observation_space"])
def test_space_of_unknown_agent_raises_a_keyerror_naming_it_and_the_possible_agents(space):
    env = readme_env()
    with pytest.raises(UnknownAgentError) as err:
        getattr(env, space)("nope")
    assert isinstance(err.value, KeyError)
    assert str(err.value) == ("'nope' is not an agent of cth-03; possible agents: "
                              "['destruction']")


# ------------------------------------------------------------------ 5. SuperSuit


def test_supersuit_is_not_a_train_dependency_and_the_docs_say_why():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert not any(req.lower().startswith("supersuit") for reqs in extras.values()
                   for req in reqs)
    text = (ROOT / "docs" / "training.md").read_text()
    assert "why not SuperSuit" in text and "env_method" in text


def test_the_projects_own_vec_env_gives_maskable_ppo_its_masks_in_place_of_supersuit():
    # what SuperSuit's concat_vec_envs_v1 cannot: MaskablePPO reaching action_masks (a short
    # MaskablePPO run over this VecEnv is test_training.py's sfb train smoke test)
    require("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from sfb_env.env.padding import FixedSpaces
    from sfb_env.env.vector import AgentVectorEnv
    from training.vec_env import SB3VecEnv

    venv = SB3VecEnv(AgentVectorEnv("duel-klingon-vs-federation", num_envs=2,
                                    fixed_spaces=FixedSpaces(), seed=0))
    venv.reset()
    assert is_masking_supported(venv)
    space = venv.action_space
    for _ in range(8):
        masks = get_action_masks(venv)
        actions = np.stack([space.sample(mask=tuple(np.split(m.astype(np.int8),
                                                             np.cumsum(space.nvec)[:-1])))
                            for m in masks])
        venv.step(actions)


def test_readme_entry_points_block_runs():
    text = (ROOT / "README.md").read_text()
    block = text.split("The other standard entry points:", 1)[1].split("```python", 1)[1]
    scope: dict = {"sfb_env": sfb_env}
    exec(block.split("```", 1)[0], scope)  # noqa: S102 - the README's own example
    assert scope["single"].spec.id == SINGLE_ID and scope["aec"].metadata["name"] == "sfb_v1"
