"""The PettingZoo env on the compiled core: the standard checkers, the reference view, the
CLI and the vector env, on the tier-1 scenarios."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from compiled_phase_helpers import (
    lockstep_vector_envs,
    random_slot_actions,
    validate_speed_choices,
)
from pettingzoo.test import parallel_api_test, parallel_seed_test

import sfb_env
from sfb_env.backends import agent_vector_env, backend_of
from sfb_env.compiled import parity
from sfb_env.compiled.batch import NotCompiledError
from sfb_env.env.padding import FixedSpaces

# auto unless a test names one; run after the core is built (tests/conftest.py)
pytestmark = [pytest.mark.usefixtures("readme_backend"), pytest.mark.compiled_late]

TIER1 = ["cth-01", "cth-02", "cth-03", "duel-klingon-vs-federation", "duel-klingon-vs-kzinti",
         "duel-klingon-vs-orion", "duel-federation-vs-kzinti", "duel-federation-vs-orion",
         "duel-kzinti-vs-orion"]
# every shipped scenario is compiled (cth-11 the last): a setup the compiled core refuses is a
# variant, cth-11 with the shield boundary by die roll (D3.41), a rule value not ported
DIE_BOUNDARY = parity.variant("cth-11", rules={"shield_boundary": "die"})


@pytest.mark.parametrize("scenario", TIER1)
def test_pettingzoo_parallel_api_and_seed_tests_pass_on_the_compiled_core(scenario):
    env = sfb_env.parallel_env(scenario, backend="compiled")
    assert backend_of(env) == "compiled"
    parallel_api_test(env, num_cycles=200)
    parallel_seed_test(lambda: sfb_env.parallel_env(scenario, backend="compiled"))


def test_the_env_generator_continues_as_on_the_reference_after_a_seeded_reset():
    """Seeding: ``reset(seed=s)`` seeds ``np_random`` with ``s`` (the compiled env makes it when
    first read), a plain ``reset()`` draws the next battle's seed from it, on both engines."""
    envs = [sfb_env.parallel_env("cth-03", backend=b) for b in ("reference", "compiled")]
    firsts = []
    for env in envs:
        env.reset(seed=7)
        env.reset()  # the seed drawn from default_rng(7)
        env.reset()
        firsts.append(env.np_random.integers(1 << 30, size=3).tolist())
    assert firsts[0] == firsts[1]
    want = np.random.default_rng(7)
    want.integers(2**31 - 1, size=2)
    assert firsts[1] == want.integers(1 << 30, size=3).tolist()
    compiled = envs[1]
    compiled.reset(seed=11)
    assert compiled.np_random.integers(100, size=4).tolist() == (
        np.random.default_rng(11).integers(100, size=4).tolist())
    compiled.np_random = np.random.default_rng(3)  # set by hand: kept, seeds the next reset
    obs, _ = compiled.reset()
    again = sfb_env.parallel_env("cth-03", backend="compiled")
    again_obs, _ = again.reset(seed=int(np.random.default_rng(3).integers(2**31 - 1)))
    assert all((obs[a]["observation"] == again_obs[a]["observation"]).all() for a in obs)


def test_auto_takes_the_compiled_core_where_it_plays_the_scenario():
    assert backend_of(sfb_env.parallel_env("cth-03")) == "compiled"
    assert backend_of(sfb_env.parallel_env("cth-05")) == "compiled"  # tier 2: 16 impulses
    assert backend_of(sfb_env.parallel_env("cth-07")) == "compiled"  # 32 impulses, full size
    assert backend_of(sfb_env.parallel_env("cth-13")) == "compiled"  # every CTH advanced rule
    assert backend_of(sfb_env.parallel_env("cth-08")) == "compiled"  # tier 3: Pirate Raid
    assert backend_of(sfb_env.parallel_env("cth-09")) == "compiled"  # planets, suicide bombs
    assert backend_of(sfb_env.parallel_env("cth-11")) == "compiled"  # the Planet Killer
    assert backend_of(sfb_env.parallel_env(DIE_BOUNDARY)) == "reference"  # (not ported)
    assert backend_of(sfb_env.parallel_env("cth-03", backend="reference")) == "reference"


def test_compiled_refuses_a_scenario_it_has_not_ported_naming_the_rule():
    with pytest.raises(NotCompiledError,
                       match="cth-11.shield_boundary=die.*rule shield_boundary='die' not ported"):
        sfb_env.parallel_env(DIE_BOUNDARY, backend="compiled")


def test_reference_view_serves_mask_reasons_state_and_render():
    env = sfb_env.parallel_env("duel-klingon-vs-federation", backend="compiled",
                               render_mode="rgb_array")
    ref = sfb_env.parallel_env("duel-klingon-vs-federation", backend="reference",
                               render_mode="rgb_array")
    obs, _ = env.reset(seed=4)
    ref_obs, _ = ref.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(30):
        if not env.agents:
            break
        actions = {a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                   for a in env.agents}
        obs, *_ = env.step(actions)
        ref_obs, *_ = ref.step(actions)
        rng.random()
    for a in env.agents:
        assert env.mask_reasons(a) == ref.mask_reasons(a)
    np.testing.assert_array_equal(env.state(), ref.state())
    assert env.battle.events == ref.battle.events
    np.testing.assert_array_equal(env.render(), ref.render())


def test_illegal_action_is_refused_or_replaced_as_on_the_reference():
    for mode in ("raise", "noop"):
        env = sfb_env.parallel_env("cth-03", backend="compiled", illegal_action=mode)
        ref = sfb_env.parallel_env("cth-03", backend="reference", illegal_action=mode)
        obs, _ = env.reset(seed=1)
        ref.reset(seed=1)
        agent = env.agents[0]
        bad = np.zeros(len(env.action_space(agent).nvec), np.int64)
        bad[0] = env.action_space(agent).nvec[0] - 1  # the last target slot: empty now
        if mode == "raise":
            with pytest.raises(ValueError) as mine:
                env.step({agent: bad})
            with pytest.raises(ValueError) as theirs:
                ref.step({agent: bad})
            assert str(mine.value) == str(theirs.value)
        else:
            out = env.step({agent: bad})
            want = ref.step({agent: bad})
            assert out[4][agent]["illegal_action"] == want[4][agent]["illegal_action"]
            np.testing.assert_array_equal(out[0][agent]["observation"],
                                          want[0][agent]["observation"])


def test_vector_env_on_the_compiled_core_steps_slots_with_masks():
    venv = agent_vector_env("duel-klingon-vs-federation", num_envs=6, learners="all",
                            seed=0, backend="compiled")
    obs = venv.reset(seed=0)
    assert obs.shape == (12, venv.observation_space.shape[0])
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        assert venv.action_masks().shape == (12, int(venv.action_space.nvec.sum()))
        obs, rewards, term, trunc, infos = venv.step(random_slot_actions(venv, rng))
        ended += sum("episode" in i for i in infos)
    assert ended > 0


def test_vector_env_refuses_robot_opponents_on_the_compiled_core():
    with pytest.raises(NotCompiledError, match="robot opponents"):
        agent_vector_env("duel-klingon-vs-federation", num_envs=2, learners="alternate",
                         opponents="robot", fixed_spaces=FixedSpaces(), backend="compiled")
    venv = agent_vector_env("duel-klingon-vs-federation", num_envs=2, learners="alternate",
                            opponents="robot", fixed_spaces=FixedSpaces())
    assert type(venv).__name__ == "AgentVectorEnv"


@pytest.mark.parametrize("opponent", ["doctrine", "random-fighter"])
def test_python_captains_fly_the_opponents_on_the_compiled_core_as_on_the_reference(opponent):
    """Same seed, same learner actions, a Python captain on the other ship: the compiled
    vector env's slots equal the reference vector env's (its captains act from the batch's
    raw observation of their ship, bound and seeded as the reference binds them) until the
    first battle ends; after it, the captains of restarted battles keep flying."""
    kw = {"num_envs": 4, "learners": "alternate", "opponents": opponent, "seed": 0,
          "fixed_spaces": FixedSpaces()}
    ref = agent_vector_env("duel-klingon-vs-federation", backend="reference", **kw)
    cmp = agent_vector_env("duel-klingon-vs-federation", backend="compiled", **kw)
    assert type(cmp).__name__ == "CompiledAgentVectorEnv"
    np.testing.assert_array_equal(cmp.reset(seed=5), ref.reset(seed=5))
    rng = np.random.default_rng(1)
    compared = 0
    for want, _ in lockstep_vector_envs(ref, cmp, rng, 400):
        compared += 1
        if any("episode" in w for w in want):
            break
    assert compared > 10, "the first battle ended before the captains were tested"
    ended = 0
    for _ in range(300):  # the restarted battles' captains: masked orders, battles end
        ended += sum("result" in i for i in cmp.step(random_slot_actions(cmp, rng))[4])
    assert ended >= 4


@pytest.mark.parametrize("command", [
    ["play", "cth-03", "--backend", "compiled", "--seed", "3", "--max-turns", "2"],
    ["bench", "duel-klingon-vs-federation", "--blue", "random-fighter", "--red", "doctrine",
     "--games", "2", "--workers", "1", "--no-progress", "--backend", "compiled"],
])
def test_cli_runs_on_the_compiled_core(command):
    out = subprocess.run([sys.executable, "-m", "sfb_env.cli", *command], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr


def test_replay_recorded_on_one_backend_reruns_on_the_other(tmp_path):
    path = tmp_path / "r.jsonl"
    run = [sys.executable, "-m", "sfb_env.cli"]
    rec = subprocess.run([*run, "play", "duel-kzinti-vs-orion", "--seed", "5", "--backend",
                          "compiled", "--replay", str(path)], capture_output=True, text=True,
                         timeout=600)
    assert rec.returncode == 0, rec.stderr
    again = subprocess.run([*run, "replay", str(path), "--backend", "reference"],
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "every event as recorded" in again.stdout


@pytest.mark.parametrize("scenario", ["cth-03", "duel-klingon-vs-federation",
                                      "duel-kzinti-vs-orion", "cth-05", "grad-hydran-vs-klingon"])
def test_masks_leave_no_speed_and_maneuver_pair_the_engine_refuses(scenario):
    """(C3.2) Why the compiled env skips the joint speed-and-maneuver check of the speed
    choice (``tiers.JOINT_SPEED_MANEUVER_CHECK``): every pair the masks leave open passes the
    engine's validation on the 8- and 16-impulse charts (the Chief Engineer's speed choice and
    the cadet energy form's)."""
    from sfb_env.compiled import tiers

    assert not tiers.JOINT_SPEED_MANEUVER_CHECK
    checked = 0
    for seed in range(2):
        env = sfb_env.parallel_env(scenario, backend="reference", illegal_action="raise")
        obs, _ = env.reset(seed=seed)
        for a in env.agents:
            env.action_space(a).seed(seed)
        while env.agents:
            checked += validate_speed_choices(env, obs, f"{scenario} seed {seed}")
            obs, *_ = env.step({a: env.action_space(a).sample(mask=obs[a]["action_mask"])
                                for a in env.agents})
    assert checked > 200


@pytest.mark.parametrize("fixed", [None, FixedSpaces()], ids=["own-spaces", "fixed-spaces"])
def test_vector_env_slots_match_the_reference_vector_env_until_the_first_battle_ends(fixed):
    """Same seed, same actions: every slot's observation, mask, reward, termination and the
    ended slots' infos (terminal observation, episode, result) equal the reference vector
    env's (whose later battles draw their seeds in another order, so the run stops at the
    first end)."""
    kw = {"num_envs": 4, "learners": "all", "seed": 0, "fixed_spaces": fixed}
    ref = agent_vector_env("duel-klingon-vs-federation", backend="reference", **kw)
    cmp = agent_vector_env("duel-klingon-vs-federation", backend="compiled", **kw)
    np.testing.assert_array_equal(cmp.reset(seed=5), ref.reset(seed=5))
    rng = np.random.default_rng(1)
    for want, got in lockstep_vector_envs(ref, cmp, rng, 300):
        for w, g in zip(want, got, strict=True):
            if "episode" in w:
                np.testing.assert_array_equal(g["terminal_observation"],
                                              w["terminal_observation"])
                assert g["episode"] == w["episode"] and g["result"] == w["result"]
        if any("episode" in w for w in want):
            return
    pytest.fail("no battle ended in 300 steps")


def test_autoreset_draws_each_next_battle_seed_from_the_batch_generator_in_battle_order():
    """``BattleBatch(seed=s)``: reset draws one seed per battle, then one more per battle for
    its next start, then one per ended battle in battle order, all from ``default_rng(s)``;
    a battle restarts with the dice of ``default_rng`` of its seed."""
    from sfb_env.compiled import dice
    from sfb_env.compiled.batch import SEED_RANGE, BattleBatch

    bb = BattleBatch("duel-klingon-vs-federation", 4, seed=9)
    bb.reset()
    gen = np.random.default_rng(9)
    want_seeds = [int(gen.integers(SEED_RANGE)) for _ in range(4)]
    want_next = [int(gen.integers(SEED_RANGE)) for _ in range(4)]
    assert bb.seeds.tolist() == want_seeds
    rng = np.random.default_rng(0)
    restarts = 0
    while restarts < 6:
        bb.step(bb.sample_actions(rng))
        for b in np.flatnonzero(bb.ended):
            assert bb.seeds[b] == want_next[b]  # the battle now starting
            want_next[b] = int(gen.integers(SEED_RANGE))
            restarts += 1
        assert bb._next_seeds.tolist() == want_next
        for b in range(4):
            np.testing.assert_array_equal(bb.reset_dice[b], dice.seeded_row(want_next[b]))
