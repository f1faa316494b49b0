"""The fused policy (training.fused_policy): sb3-contrib's networks with the fused masked
distribution, chosen by ``ppo.fused_distribution``; MaskablePPO trains through it on the
compiled vector env without ever taking a masked action."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import require

import sfb_env

th = require("torch")
sb3_contrib = require("sb3_contrib")

from gymnasium import spaces  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402

from training.fused_distribution import FusedMaskableMultiCategorical  # noqa: E402
from training.fused_policy import FusedMaskablePolicy  # noqa: E402

DUEL = "duel-klingon-vs-federation"
NVEC = [9] * 12 + [4, 32]


def policies():
    kwargs = {"net_arch": {"pi": [32, 32], "vf": [32, 32]}}
    obs = spaces.Box(-1.0, 1.0, (20,), np.float32)
    act = spaces.MultiDiscrete(NVEC)
    stock = MaskableActorCriticPolicy(obs, act, lambda _: 3e-4, **kwargs)
    fused = FusedMaskablePolicy(obs, act, lambda _: 3e-4, **kwargs)
    return stock, fused


def test_the_fused_policy_takes_the_stock_policys_weights_and_evaluates_actions_alike():
    stock, fused = policies()
    assert isinstance(fused.action_dist, FusedMaskableMultiCategorical)
    fused.load_state_dict(stock.state_dict())  # same parameter names and shapes
    rng = np.random.default_rng(0)
    obs = th.as_tensor(rng.uniform(-1, 1, (16, 20)), dtype=th.float32)
    masks = rng.random((16, sum(NVEC))) < 0.5
    masks[:, np.concatenate([[0], np.cumsum(NVEC)[:-1]])] = True
    actions = stock.get_distribution(obs, masks).sample()
    for a, b in zip(stock.evaluate_actions(obs, actions, th.as_tensor(masks)),
                    fused.evaluate_actions(obs, actions, th.as_tensor(masks)), strict=True):
        assert th.allclose(a, b, atol=1e-5)
    mode, _ = fused.predict(obs.numpy(), deterministic=True, action_masks=masks)
    assert np.array_equal(mode, stock.predict(obs.numpy(), deterministic=True,
                                              action_masks=masks)[0])


def test_ppo_fused_distribution_defaults_to_true_and_must_be_a_boolean(tmp_path):
    from training.config import ConfigError, load_config

    path = tmp_path / "run.yaml"
    path.write_text("stages:\n  - {scenario: cth-01, timesteps: 10}\n")
    assert load_config(path).ppo.fused_distribution is True
    path.write_text("ppo: {fused_distribution: false}\nstages:\n  - {scenario: cth-01, "
                    "timesteps: 10}\n")
    assert load_config(path).ppo.fused_distribution is False
    path.write_text("ppo: {fused_distribution: 1}\nstages:\n  - {scenario: cth-01, "
                    "timesteps: 10}\n")
    with pytest.raises(ConfigError, match="ppo.fused_distribution"):
        load_config(path)


@pytest.mark.parametrize("fused", [True, False])
def test_the_config_chooses_the_policy_class(tmp_path, fused):
    import dataclasses

    from training.config import parse_config
    from training.sb3_train import _new_model

    config = parse_config({"ppo": {"n_envs": 2, "n_steps": 8, "batch_size": 8,
                                   "net_arch": [16], "fused_distribution": fused},
                           "stages": [{"scenario": DUEL, "timesteps": 16, "opponent": "self"}]})
    config = dataclasses.replace(config, env=dataclasses.replace(config.env,
                                                                 backend="reference"))
    venv = sfb_env.vector_env(DUEL, num_envs=1, seed=0, backend="reference")
    model = _new_model(config, venv, Path(tmp_path))
    assert isinstance(model.policy.action_dist, FusedMaskableMultiCategorical) == fused


@pytest.mark.compiled_late
def test_maskable_ppo_through_the_fused_policy_on_the_compiled_vector_env_takes_no_masked_action(
    monkeypatch,
):
    from sfb_env.compiled.vector import CompiledAgentVectorEnv

    counts = {"steps": 0, "masked": 0}
    step = CompiledAgentVectorEnv.step

    def checked_step(self, actions):
        offsets = np.concatenate([[0], np.cumsum(self.action_space.nvec)[:-1]])
        taken = self.action_masks()[np.arange(self.num_slots)[:, None],
                                    offsets + np.asarray(actions)]
        counts["masked"] += int((~taken.all(axis=1)).sum())
        counts["steps"] += self.num_slots
        return step(self, actions)

    monkeypatch.setattr(CompiledAgentVectorEnv, "step", checked_step)
    venv = sfb_env.vector_env(DUEL, num_envs=8, seed=0, backend="compiled")  # 16 slots
    assert isinstance(venv.venv, CompiledAgentVectorEnv)
    model = sb3_contrib.MaskablePPO(FusedMaskablePolicy, venv, n_steps=32, batch_size=128,
                                    n_epochs=2, seed=0, device="cpu",
                                    policy_kwargs={"net_arch": [64]})
    model.learn(total_timesteps=1024)
    assert counts["steps"] >= 1024 and counts["masked"] == 0


@pytest.mark.compiled_late
def test_duel_fast_config_runs_every_stage_on_the_compiled_core_with_the_fused_policy():
    from sfb_env.compiled.vector import CompiledAgentVectorEnv
    from training.config import load_config
    from training.curriculum import Curriculum

    config = load_config(Path(__file__).resolve().parents[1] / "configs" / "training" /
                         "duel-fast.yaml")
    assert config.ppo.fused_distribution and config.env.backend == "compiled"
    curriculum = Curriculum(config)
    while not curriculum.finished:
        venv = curriculum.make_env(config.seed)
        assert isinstance(venv, CompiledAgentVectorEnv)
        assert venv.num_slots == config.ppo.n_envs
        curriculum.advance()
