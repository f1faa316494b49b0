"""The identity block of ``FixedSpaces`` (``races``): after the padded layout, the own ship's
race one-hot and the other side's races (a multi-hot), so one policy over many duels knows
which ship it flies and whom it fights; a checkpoint padded without it is widened by
``sfb train --init`` into a policy that acts and values exactly as it did."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import require
from test_graduate_spaces import FIXED, GRAD_RACES, GRADUATE, IDENTITY

import sfb_env
from sfb_env.data.ships import RACES
from sfb_env.env.padding import FixedSpaces, FixedSpacesError
from training.config import ConfigError, parse_config


@pytest.mark.parametrize("scenario", GRADUATE)
def test_identity_block_is_the_ships_race_then_its_foes_after_the_padded_layout(scenario):
    env = sfb_env.parallel_env(scenario, backend="reference")
    obs, _ = env.reset(seed=2)
    blue, red = scenario.removeprefix("grad-").split("-vs-")
    race_of = dict(zip(env.possible_agents, (blue, red), strict=True))
    n, r = FIXED.observation_size, len(GRAD_RACES)
    assert IDENTITY.observation_size == n + 2 * r
    for agent in env.agents:
        space = env.action_space(agent)
        plain = FIXED.pad_observation(obs[agent]["observation"], space)
        padded = IDENTITY.pad_observation(obs[agent]["observation"], space)
        np.testing.assert_array_equal(padded[:n], plain)
        foe = red if race_of[agent] == blue else blue
        assert np.flatnonzero(padded[n:n + r]).tolist() == [GRAD_RACES.index(race_of[agent])]
        assert np.flatnonzero(padded[n + r:]).tolist() == [GRAD_RACES.index(foe)]


@pytest.mark.parametrize(("races", "problem"), [
    (("hydran", "elf"), "unknown race 'elf'"),
    (("hydran", "hydran"), "lists a race twice"),
    ("hydran", "must be a list of race names"),
])
def test_races_field_refuses_a_bad_list_naming_it(races, problem):
    with pytest.raises(FixedSpacesError, match=problem) as info:
        dataclasses.replace(FIXED, races=races)
    assert info.value.field == "races"


def test_a_ship_or_foe_outside_the_races_is_refused_naming_the_field():
    env = sfb_env.parallel_env("grad-hydran-vs-klingon", backend="reference")
    obs, _ = env.reset(seed=1)
    vector, space = obs["hydran-cadet"]["observation"], env.action_space("hydran-cadet")
    for races, missing in ((("klingon",), "the ship's race is hydran"),
                           (("hydran",), "a foe's race is klingon")):
        with pytest.raises(FixedSpacesError, match=missing) as info:
            dataclasses.replace(FIXED, races=races).pad_observation(vector, space)
        assert info.value.field == "races"
    env = sfb_env.parallel_env("duel-klingon-vs-federation", backend="reference")
    obs, _ = env.reset(seed=1)
    agent = env.agents[0]
    cadet = FixedSpaces(races=("klingon", "federation"))
    assert cadet.pad_observation(obs[agent]["observation"], env.action_space(agent))[-4:].sum() == 2
    with pytest.raises(FixedSpacesError, match="unknown") as info:  # an nvec alone: no race
        cadet.pad_observation(obs[agent]["observation"], env.action_space(agent).nvec)
    assert info.value.field == "races"


def test_every_race_of_the_ship_data_may_be_listed_and_the_sidecar_keeps_the_order():
    fixed = dataclasses.replace(FIXED, races=tuple(reversed(RACES)))
    assert fixed.to_dict()["races"] == list(reversed(RACES))
    assert FixedSpaces(**fixed.to_dict()) == fixed
    assert "races" not in FIXED.to_dict()  # a checkpoint without the block: as it was


def test_config_refuses_races_that_are_not_a_list_naming_the_field():
    text = ("env: {fixed_spaces: {races: hydran}}\n"
            "stages:\n  - {scenario: grad-isc-vs-orion, timesteps: 10}\n")
    with pytest.raises(ConfigError, match="list of races") as info:
        parse_config(yaml.safe_load(text), "g.yaml")
    assert info.value.field == "env.fixed_spaces.races"
    text = text.replace("races: hydran", "races: [hydran, vulcan]")
    with pytest.raises(ConfigError, match="unknown race 'vulcan'") as info:
        parse_config(yaml.safe_load(text), "g.yaml")
    assert info.value.field == "env.fixed_spaces.races"


def _config(tmp_path: Path, name: str, races: tuple[str, ...]) -> Path:
    fixed = {k: list(v) if isinstance(v, tuple) else v
             for k, v in dataclasses.replace(FIXED, races=races).to_dict().items()}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({
        "name": name, "seed": 0, "torch_threads": 1,
        "env": {"reward": "shaped", "backend": "reference", "fixed_spaces": fixed},
        "ppo": {"n_envs": 2, "n_steps": 16, "batch_size": 32, "n_epochs": 1,
                "net_arch": [16], "fused_distribution": True},
        "evaluation": {"every": 0, "games": 1}, "checkpoints": {"every": 0},
        "stages": [{"scenario": "grad-hydran-vs-klingon", "agent": "alternate",
                    "opponent": "random-fighter", "timesteps": 32}]}))
    return path


def test_init_widens_a_checkpoint_without_the_identity_block_to_act_and_value_as_it_did(
        tmp_path):
    require("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from sfb_env.cli import main
    from training.config import load_config
    from training.curriculum import Curriculum, CurriculumState
    from training.sb3_train import _init_model
    from training.vec_env import SB3VecEnv

    plain = _config(tmp_path, "plain", ())
    assert main(["train", str(plain), "--output", str(tmp_path / "a"), "--no-progress"]) == 0
    first = tmp_path / "a" / "final.zip"
    config = load_config(_config(tmp_path, "identity", GRAD_RACES))
    curriculum = Curriculum(config, None, CurriculumState())
    venv = SB3VecEnv(curriculum.make_env(7), seed=7)
    widened = _init_model(first, config, curriculum, venv, tmp_path / "b")
    old = MaskablePPO.load(first, device="cpu")
    assert widened.num_timesteps == old.num_timesteps
    obs = venv.reset()
    masks = np.asarray(venv.env_method("action_masks")[0])
    n = FIXED.observation_size
    assert obs.shape[1] == n + 2 * len(GRAD_RACES) and obs[:, n:].sum() == 2 * len(obs)
    with torch.no_grad():
        seen = {}
        for name, policy, view in (("old", old.policy, obs[:, :n]), ("new", widened.policy, obs)):
            tensor = torch.as_tensor(view)
            seen[name] = ([p.numpy() for p in policy.get_distribution(tensor, masks).probs],
                          policy.predict_values(tensor).numpy())
    np.testing.assert_allclose(seen["new"][1], seen["old"][1], rtol=1e-6)
    # the optimizer's moments: the checkpoint's, and zero for the identity columns
    was, now = old.policy.optimizer.state_dict(), widened.policy.optimizer.state_dict()
    assert was["state"] and now["state"].keys() == was["state"].keys()
    for i, entry in was["state"].items():
        for key, value in entry.items():
            got = now["state"][i][key]
            if torch.is_tensor(value) and value.dim() == 2 and got.shape != value.shape:
                np.testing.assert_array_equal(got[:, :n], value)
                assert not got[:, n:].any()
            else:
                np.testing.assert_array_equal(got, value)
    for new, was in zip(seen["new"][0], seen["old"][0], strict=True):
        np.testing.assert_allclose(new, was, rtol=1e-6, atol=1e-7)
    venv.close()
    # and sfb train --init takes that path: the run trains on in the wider spaces
    assert main(["train", str(_config(tmp_path, "identity", GRAD_RACES)), "--output",
                 str(tmp_path / "c"), "--init", str(first), "--no-progress"]) == 0
    sidecar = json.loads((tmp_path / "c" / "final.json").read_text())
    assert sidecar["observation_size"] == n + 2 * len(GRAD_RACES)
    assert sidecar["fixed_spaces"]["races"] == list(GRAD_RACES)
    assert sidecar["timesteps"] >= 64  # counted on from the first run's 32
