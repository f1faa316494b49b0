"""Seat heads (``training.seat_heads``, ``ppo.seat_heads``): residual action heads per seat on a
frozen shared policy. Fresh heads act exactly as the checkpoint; a trained head changes its
seat's actions only; ``sfb train --init`` trains the heads and the value side, nothing shared;
the checkpoint loads and flies as any other."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from conftest import require
from test_graduate_spaces import FIXED, GRAD_RACES

from training.config import ConfigError, parse_config

SCENARIO = "grad-hydran-vs-klingon"  # hydran blue, klingon red
SEAT = ["hydran", "klingon"]


def _config(tmp_path: Path, name: str, seat_heads: list | None = None, reward: str = "shaped",
            views: tuple[str, ...] = (), **ppo) -> Path:
    spaces = dataclasses.replace(FIXED, races=GRAD_RACES,
                                 rule_features=FIXED.rule_features + views)
    fixed = {k: list(v) if isinstance(v, tuple) else v for k, v in spaces.to_dict().items()}
    ppo = {"n_envs": 2, "n_steps": 16, "batch_size": 32, "n_epochs": 1, "net_arch": [16],
           "fused_distribution": True, "learning_rate": 1.0e-2, **ppo}
    if seat_heads is not None:
        ppo["seat_heads"] = seat_heads
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({
        "name": name, "seed": 0, "torch_threads": 1,
        "env": {"reward": reward, "backend": "reference", "fixed_spaces": fixed},
        "ppo": ppo, "evaluation": {"every": 0, "games": 1}, "checkpoints": {"every": 0},
        "stages": [{"scenario": SCENARIO, "agent": "alternate", "opponent": "random-fighter",
                    "timesteps": 32}]}))
    return path


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Path:
    """A tiny trained shared policy (no heads), with the identity block."""
    require("sb3_contrib")
    from sfb_env.cli import main

    tmp = tmp_path_factory.mktemp("shared")
    assert main(["train", str(_config(tmp, "plain")), "--output", str(tmp / "a"),
                 "--no-progress"]) == 0
    return tmp / "a" / "final.zip"


def _probs(policy, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(obs), masks)
        return np.concatenate([p.numpy().reshape(len(obs), -1) for p in dist.probs], axis=1)


def test_fresh_heads_act_exactly_as_the_checkpoint_and_a_head_moves_only_its_seat(
        tmp_path, shared):
    import torch
    from sb3_contrib import MaskablePPO

    from training.config import load_config
    from training.curriculum import Curriculum, CurriculumState
    from training.sb3_train import _init_model
    from training.seat_heads import SeatHeadPolicy
    from training.vec_env import SB3VecEnv

    config = load_config(_config(tmp_path, "heads", [SEAT], n_envs=4))  # the checkpoint's 2
    curriculum = Curriculum(config, None, CurriculumState())
    venv = SB3VecEnv(curriculum.make_env(5), seed=5)
    model = _init_model(shared, config, curriculum, venv, tmp_path / "b")
    old = MaskablePPO.load(shared, device="cpu")
    assert isinstance(model.policy, SeatHeadPolicy)
    assert model.num_timesteps == old.num_timesteps
    obs = venv.reset()
    masks = np.asarray(venv.env_method("action_masks")[0])
    n, r = FIXED.observation_size, len(GRAD_RACES)
    hydran = obs[:, n + GRAD_RACES.index("hydran")] == 1  # the seat's rows (blue, alternate)
    assert hydran.any() and (~hydran).any()
    np.testing.assert_array_equal(_probs(model.policy, obs, masks),
                                  _probs(old.policy, obs, masks))
    with torch.no_grad():
        np.testing.assert_array_equal(model.policy.predict_values(torch.as_tensor(obs)),
                                      old.policy.predict_values(torch.as_tensor(obs)))
        for param in model.policy.action_net.hidden[0][-1].parameters():
            param.normal_()
    moved = _probs(model.policy, obs, masks)
    was = _probs(old.policy, obs, masks)
    np.testing.assert_array_equal(moved[~hydran], was[~hydran])  # the other seat, bit for bit
    assert not np.allclose(moved[hydran], was[hydran])
    assert obs[:, n + r + GRAD_RACES.index("klingon")][hydran].all()
    venv.close()


def test_sfb_train_with_seat_heads_trains_the_heads_and_the_value_and_nothing_shared(
        tmp_path, shared):
    import torch
    from sb3_contrib import MaskablePPO

    import sfb_env
    from agents.sb3_policy import SB3Policy
    from sfb_env.cli import main
    from training.seat_heads import SeatHeadPolicy

    out = tmp_path / "heads"
    assert main(["train", str(_config(tmp_path, "heads", [SEAT], seat_head_hidden=8)),
                 "--output", str(out), "--init", str(shared), "--no-progress"]) == 0
    trained = MaskablePPO.load(out / "final.zip", device="cpu")
    old = MaskablePPO.load(shared, device="cpu")
    policy = trained.policy
    assert isinstance(policy, SeatHeadPolicy)
    assert (policy.seat_heads, policy.races, policy.hidden) == ([SEAT], list(GRAD_RACES), 8)
    was = old.policy.state_dict()
    now = policy.state_dict()
    for name, tensor in was.items():
        here = name.replace("action_net.", "action_net.base.")
        if name.startswith(("mlp_extractor.policy_net.", "action_net.")):
            assert torch.equal(now[here], tensor), name  # frozen
    assert any(not torch.equal(now[n], was[n]) for n in was if "value" in n)
    assert any(now[n].abs().sum() > 0 for n in now if n.startswith("action_net.latent."))
    assert json.loads((out / "final.json").read_text())["timesteps"] >= 64
    # a seat-head checkpoint flies through SB3Policy like any other, both sides
    captain = SB3Policy(out / "final.zip")
    env = sfb_env.parallel_env(SCENARIO, backend="reference", illegal_action="raise")
    obs, _ = env.reset(seed=2)
    for _ in range(40):
        if not env.agents:
            break
        obs, *_ = env.step({a: captain.act(obs[a], env.action_space(a)) for a in env.agents})
    # and --init from it with the same heads goes on; other heads are refused, naming the field
    assert main(["train", str(_config(tmp_path, "again", [SEAT], seat_head_hidden=8)),
                 "--output", str(tmp_path / "again"), "--init", str(out / "final.zip"),
                 "--no-progress"]) == 0
    assert main(["train", str(_config(tmp_path, "other", [SEAT, ["klingon", "hydran"]])),
                 "--output", str(tmp_path / "other"), "--init", str(out / "final.zip"),
                 "--no-progress"]) == 2


@pytest.mark.parametrize(("ppo", "fixed", "problem"), [
    ({"seat_heads": [["hydran", "vulcan"]]}, {"races": ["hydran", "klingon"]},
     "race 'vulcan' of seat ['hydran', 'vulcan'] is not in env.fixed_spaces.races"),
    ({"seat_heads": [["hydran", "klingon"]]}, {}, "fixed_spaces.races must list"),
    ({"seat_heads": [["hydran", "klingon"]], "fused_distribution": False},
     {"races": ["hydran", "klingon"]}, "fused_distribution: true"),
    ({"seat_heads": [["hydran", "klingon"], ["hydran", "klingon"]]},
     {"races": ["hydran", "klingon"]}, "listed twice"),
    ({"seat_heads": [["hydran"]]}, {"races": ["hydran"]}, "[race, foe race] seats"),
])
def test_config_refuses_bad_seat_heads_naming_the_field(ppo, fixed, problem):
    doc = {"env": {"fixed_spaces": fixed}, "ppo": ppo,
           "stages": [{"scenario": SCENARIO, "timesteps": 10}]}
    with pytest.raises(ConfigError) as info:
        parse_config(doc, "g.yaml")
    assert info.value.field == "ppo.seat_heads"
    assert problem in str(info.value)


def test_seat_heads_need_a_trained_policy_to_ride_on(tmp_path, capsys):
    require("sb3_contrib")
    from sfb_env.cli import main

    assert main(["train", str(_config(tmp_path, "fresh", [SEAT])), "--output",
                 str(tmp_path / "x"), "--no-progress"]) == 2
    assert "ppo.seat_heads" in capsys.readouterr().err


def _both_seats(tmp_path: Path, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations and masks of both ships of the duel (a fresh vector env's first step), and
    which rows are the Hydran's."""
    from training.config import load_config
    from training.curriculum import Curriculum, CurriculumState
    from training.vec_env import SB3VecEnv

    config = load_config(_config(tmp_path, name))
    venv = SB3VecEnv(Curriculum(config, None, CurriculumState()).make_env(9), seed=9)
    obs = venv.reset()
    masks = np.asarray(venv.env_method("action_masks")[0])
    venv.close()
    hydran = obs[:, FIXED.observation_size + GRAD_RACES.index("hydran")] == 1
    return obs, masks, hydran


def test_merge_joins_the_heads_of_runs_on_one_shared_policy_seat_by_seat(tmp_path, shared):
    from sb3_contrib import MaskablePPO

    from sfb_env.cli import main
    from training.merge_seat_heads import main as merge

    runs = {}
    for name, seat in (("blue", SEAT), ("red", ["klingon", "hydran"])):
        assert main(["train", str(_config(tmp_path, name, [seat])), "--output",
                     str(tmp_path / name), "--init", str(shared), "--no-progress"]) == 0
        runs[name] = tmp_path / name / "final.zip"
    out = tmp_path / "merged.zip"
    assert merge([str(out), str(runs["blue"]), str(runs["red"])]) == 0
    merged = MaskablePPO.load(out, device="cpu")
    assert merged.policy.seat_heads == [SEAT, ["klingon", "hydran"]]
    side = json.loads(out.with_suffix(".json").read_text())
    assert [entry["seats"] for entry in side["seat_heads_from"]] == [[SEAT],
                                                                    [["klingon", "hydran"]]]
    obs, masks, hydran = _both_seats(tmp_path, "plain2")
    got = got_merged = _probs(merged.policy, obs, masks)
    for name, rows in (("blue", hydran), ("red", ~hydran)):  # each seat flies as its run did
        want = _probs(MaskablePPO.load(runs[name], device="cpu").policy, obs, masks)
        np.testing.assert_array_equal(got[rows], want[rows])
    # --drop leaves a seat's head out: that seat flies as the shared policy
    dropped = tmp_path / "dropped.zip"
    assert merge([str(dropped), str(runs["blue"]), str(runs["red"]), "--drop",
                  "klingon:hydran"]) == 0
    policy = MaskablePPO.load(dropped, device="cpu").policy
    assert policy.seat_heads == [SEAT]
    got = _probs(policy, obs, masks)
    np.testing.assert_array_equal(got[hydran], _probs(merged.policy, obs, masks)[hydran])
    np.testing.assert_array_equal(
        got[~hydran], _probs(MaskablePPO.load(shared, device="cpu").policy, obs, masks)[~hydran])
    assert merge([str(tmp_path / "z.zip"), str(runs["blue"]), str(runs["red"]), "--drop",
                  "gorn:hydran"]) == 2
    # RACE:FOE@K drops the K-th input's head only: the seat's head comes from the other input
    both = tmp_path / "both.zip"
    assert merge([str(both), str(out), str(runs["red"]), "--drop", "klingon:hydran@1"]) == 0
    np.testing.assert_array_equal(_probs(MaskablePPO.load(both, device="cpu").policy, obs,
                                         masks), got_merged)
    assert merge([str(tmp_path / "w.zip"), str(out), str(runs["red"]), "--drop",
                  "hydran:klingon@2"]) == 2  # input 2 has no head for that seat
    # a seat twice, or a checkpoint without heads, is refused (exit 2)
    assert merge([str(tmp_path / "x.zip"), str(runs["blue"]), str(runs["blue"])]) == 2
    assert merge([str(tmp_path / "y.zip"), str(runs["blue"]), str(shared)]) == 2


def test_a_head_started_from_the_shared_layers_acts_as_the_checkpoint_and_trains_them(
        tmp_path, shared):
    import torch
    from sb3_contrib import MaskablePPO

    from training.config import load_config
    from training.curriculum import Curriculum, CurriculumState
    from training.sb3_train import _init_model
    from training.vec_env import SB3VecEnv

    config = load_config(_config(tmp_path, "copy", [SEAT], seat_head_hidden=[[16]],
                                 seat_head_from_shared=True))  # net_arch [16]
    venv = SB3VecEnv(Curriculum(config, None, CurriculumState()).make_env(5), seed=5)
    model = _init_model(shared, config, Curriculum(config, None, CurriculumState()), venv,
                        tmp_path / "b")
    venv.close()
    old = MaskablePPO.load(shared, device="cpu")
    head = model.policy.action_net.hidden[0]
    shared_layer = model.policy.mlp_extractor.policy_net[0]
    assert torch.equal(head[0].weight, shared_layer.weight)  # a copy, not a random start
    assert torch.equal(head[0].bias, shared_layer.bias) and head[0].weight.requires_grad
    obs, masks, _ = _both_seats(tmp_path, "plain4")
    np.testing.assert_array_equal(_probs(model.policy, obs, masks),
                                  _probs(old.policy, obs, masks))


def _merge_two(tmp_path: Path, shared: Path, heads: list[tuple], refused: Any) -> Any:
    """Train a head for each seat (``heads``: (hidden, reward) for the Hydran's seat, then the
    Klingon's) from ``shared``, merge them, check that the merge flies each seat bit for bit
    as its run and trains on with the merged sizes but not with ``refused``; returns the merged
    model (its sidecar: ``tmp_path / "merged.json"``)."""
    from sb3_contrib import MaskablePPO

    from sfb_env.cli import main
    from training.merge_seat_heads import main as merge

    seats = [SEAT, ["klingon", "hydran"]]
    runs = []
    for k, (seat, (hidden, reward)) in enumerate(zip(seats, heads, strict=True)):
        config = _config(tmp_path, f"run{k}", [seat], reward, seat_head_hidden=hidden)
        assert main(["train", str(config), "--output", str(tmp_path / f"run{k}"), "--init",
                     str(shared), "--no-progress"]) == 0
        runs.append(tmp_path / f"run{k}" / "final.zip")
    out = tmp_path / "merged.zip"
    assert merge([str(out), *map(str, runs)]) == 0
    merged = MaskablePPO.load(out, device="cpu")
    obs, masks, hydran = _both_seats(tmp_path, "plain3")
    got = _probs(merged.policy, obs, masks)
    for run, rows in zip(runs, (hydran, ~hydran), strict=True):
        want = _probs(MaskablePPO.load(run, device="cpu").policy, obs, masks)
        np.testing.assert_array_equal(got[rows], want[rows])
    assert main(["train", str(_config(tmp_path, "on", seats,
                                      seat_head_hidden=merged.policy.hidden)),
                 "--output", str(tmp_path / "on"), "--init", str(out), "--no-progress"]) == 0
    assert main(["train", str(_config(tmp_path, "off", seats, seat_head_hidden=refused)),
                 "--output", str(tmp_path / "off"), "--init", str(out), "--no-progress"]) == 2
    return merged


def test_merge_keeps_each_heads_size_and_reward_and_flies_each_seat_as_its_run(tmp_path,
                                                                                shared):
    merged = _merge_two(tmp_path, shared, [(12, "shaped"), (3, "points")], refused=12)
    assert merged.policy.hidden == [12, 3]  # one size for both is refused above
    side = json.loads((tmp_path / "merged.json").read_text())
    assert [e["reward"] for e in side["seat_heads_from"]] == ["shaped", "points"]
    assert merged.policy.action_net.hidden[1][0].weight.shape[0] == 3


def test_deep_heads_train_merge_with_shallow_ones_and_fly_each_seat_as_their_run(tmp_path,
                                                                                shared):
    merged = _merge_two(tmp_path, shared, [([[8, 4]], "shaped"), (3, "shaped")],
                           refused=[8, 3])
    assert merged.policy.hidden == [[8, 4], 3]
    layers = merged.policy.action_net.hidden[0]
    assert [m.weight.shape for m in layers if hasattr(m, "weight")][1:] == [
        (4, 8), (merged.policy.action_net.base.out_features, 4)]


@pytest.mark.parametrize(("ppo", "problem"), [
    ({}, "needs ppo.seat_heads"),
    ({"seat_heads": [SEAT], "seat_head_hidden": 64}, "no seat head is as wide as the shared"),
])
def test_config_refuses_a_copy_of_the_shared_layers_with_nothing_to_copy(ppo, problem):
    doc = {"env": {"fixed_spaces": {"races": SEAT}},
           "ppo": {"seat_head_from_shared": True, "net_arch": [64, 64], **ppo},
           "stages": [{"scenario": SCENARIO, "timesteps": 10}]}
    with pytest.raises(ConfigError) as info:
        parse_config(doc, "g.yaml")
    assert info.value.field == "ppo.seat_head_from_shared"
    assert problem in str(info.value)


@pytest.mark.parametrize(("hidden", "problem"), [
    ([8, 8], "2 sizes for 1 seat heads"),
    ([-1], "expected hidden units (>= 0)"),
    ("wide", "expected hidden units (>= 0)"),
    ([[]], "a list of layer widths"),
    ([[16, 0]], "a list of layer widths"),
])
def test_config_refuses_bad_seat_head_sizes_naming_the_field(hidden, problem):
    doc = {"env": {"fixed_spaces": {"races": ["hydran", "klingon"]}},
           "ppo": {"seat_heads": [["hydran", "klingon"]], "seat_head_hidden": hidden},
           "stages": [{"scenario": SCENARIO, "timesteps": 10}]}
    with pytest.raises(ConfigError) as info:
        parse_config(doc, "g.yaml")
    assert info.value.field == "ppo.seat_head_hidden"
    assert problem in str(info.value)


def test_init_widens_a_seat_head_checkpoint_into_the_enemy_fire_view(tmp_path, shared):
    """A seat-head checkpoint widened into a config whose spaces add the ``enemy_fire`` view
    (``--init``): every layer that reads the observation gets zero weights for the block, the
    identity positions move with it, and the policy acts and values as the checkpoint did."""
    import torch
    from sb3_contrib import MaskablePPO

    from sfb_env.cli import main
    from sfb_env.env.padding import FixedSpaces
    from training.config import load_config
    from training.curriculum import Curriculum, CurriculumState
    from training.sb3_train import _init_model
    from training.vec_env import SB3VecEnv

    heads = _config(tmp_path, "heads", [SEAT])
    assert main(["train", str(heads), "--init", str(shared), "--output", str(tmp_path / "h"),
                 "--no-progress"]) == 0
    first = tmp_path / "h" / "final.zip"
    old = MaskablePPO.load(first, device="cpu")
    with torch.no_grad():  # a head that acts, so the test sees it carried over
        for param in old.policy.action_net.hidden[0].parameters():
            param.normal_()
    old.save(first)
    config = load_config(_config(tmp_path, "view", [SEAT], views=("enemy_fire",), n_envs=4))
    curriculum = Curriculum(config, None, CurriculumState())
    venv = SB3VecEnv(curriculum.make_env(5), seed=5)
    model = _init_model(first, config, curriculum, venv, tmp_path / "b")
    obs = venv.reset()
    for _ in range(40):  # into the fight, so the block reads some fire
        masks = np.asarray(venv.env_method("action_masks")[0])
        obs, *_ = venv.step(model.predict(obs, action_masks=masks)[0])
    masks = np.asarray(venv.env_method("action_masks")[0])
    wide = curriculum.fixed_spaces
    columns = wide.columns_of(FixedSpaces(**{**wide.to_dict(),
                                             "rule_features": list(FIXED.rule_features)}))
    block = wide.placement.span("enemy_fire")
    assert obs[:, block].any()  # the view shows fire
    np.testing.assert_allclose(_probs(model.policy, obs, masks),
                               _probs(old.policy, obs[:, columns], masks), rtol=1e-5, atol=1e-7)
    with torch.no_grad():
        np.testing.assert_allclose(model.policy.predict_values(torch.as_tensor(obs)),
                                   old.policy.predict_values(torch.as_tensor(obs[:, columns])),
                                   rtol=1e-5)
    first_layer = model.policy.action_net.hidden[0][0].weight
    assert not first_layer[:, block].any() and first_layer.requires_grad
    venv.close()
