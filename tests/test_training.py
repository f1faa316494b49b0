"""Training infrastructure (issue 6): fixed spaces, the vectorised multi-agent view, opponents,
config validation, and the ``sfb train`` smoke run (MaskablePPO never takes a masked action
and writes a checkpoint that ``MaskablePPO.load`` reads and ``SB3Policy`` flies)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import require

import sfb_env
from sfb_env.env.padding import FixedSpaces
from sfb_env.env.single import SingleAgentEnv
from sfb_env.env.vector import AgentVectorEnv

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "configs" / "training" / "smoke.yaml"
DUEL = "duel-klingon-vs-federation"


def allowed(mask: np.ndarray, nvec: np.ndarray, action: np.ndarray) -> bool:
    """Whether every component of ``action`` is allowed by the flat ``mask``."""
    offsets = np.concatenate([[0], np.cumsum(nvec)[:-1]])
    return all(mask[o + int(a)] for o, a in zip(offsets, action, strict=True))


def random_actions(venv: AgentVectorEnv, rng: np.random.Generator) -> np.ndarray:
    return np.stack([venv.action_space.sample(mask=m.astype(np.int8))
                     for m in venv.action_masks()])


# ---------------------------------------------------------------------- fixed spaces


def test_fixed_spaces_pad_a_cadet_ship_and_unpad_its_action():
    env = sfb_env.parallel_env("cth-03")
    obs, _ = env.reset(seed=0)
    agent = env.agents[0]
    nvec = env.action_space(agent).nvec
    fixed = FixedSpaces()
    vector = fixed.pad_observation(obs[agent]["observation"], nvec)
    mask = fixed.pad_mask(obs[agent]["action_mask"], nvec)
    assert vector.shape == fixed.observation_space().shape
    assert mask.shape == (fixed.nvec.sum(),)
    parts = fixed.action_space().split_mask(mask)
    positions = len(nvec) - 2
    for padded in parts[positions:fixed.positions]:
        assert padded.tolist() == [1] + [0] * fixed.target_slots  # hold only
    assert not parts[-1][nvec[-1]:].any()  # no speed above the scenario's top
    action = fixed.action_space().sample(mask=mask)
    raw = fixed.unpad_action(action, nvec)
    assert raw.shape == nvec.shape
    assert allowed(obs[agent]["action_mask"], nvec, raw)


def test_fixed_spaces_refuse_a_ship_that_does_not_fit():
    nvec = np.array([9] * 5 + [4, 9])
    with pytest.raises(ValueError, match="positions"):
        FixedSpaces(positions=4).check(nvec)
    with pytest.raises(ValueError, match="max_speed"):
        FixedSpaces(max_speed=4).check(nvec)


# ---------------------------------------------------------------------- env views


def test_single_agent_env_robot_opponent_hands_the_other_ship_to_the_engine():
    env = SingleAgentEnv(DUEL, agent="klingon-cadet", opponents="robot:idle")
    assert env.parallel.possible_agents == ["klingon-cadet"]
    env.reset(seed=1)
    assert env.action_masks().shape == (env.action_space.nvec.sum(),)


def test_single_agent_env_binds_a_doctrine_opponent_and_plays_a_game():
    env = SingleAgentEnv(DUEL, agent="fed-cadet", opponents="doctrine",
                         fixed_spaces=FixedSpaces())
    vector, _ = env.reset(seed=2)
    assert vector.shape == env.observation_space.shape
    done, steps = False, 0
    while not done and steps < 200:
        action = env.action_space.sample(mask=env.action_masks().astype(np.int8))
        vector, _, terminated, truncated, info = env.step(action)
        done, steps = terminated or truncated, steps + 1
    assert done and info["outcome"]["result"] in ("win", "draw", "loss")


def test_vector_self_play_slots_auto_reset_and_report_episodes():
    venv = AgentVectorEnv(DUEL, num_envs=2, learners="all", fixed_spaces=FixedSpaces(), seed=0)
    assert venv.slots == [(0, "klingon-cadet"), (0, "fed-cadet"),
                          (1, "klingon-cadet"), (1, "fed-cadet")]
    obs = venv.reset(seed=0)
    assert obs.shape == (4, venv.observation_space.shape[0])
    rng = np.random.default_rng(0)
    results = []
    for _ in range(200):
        actions = random_actions(venv, rng)
        masks = venv.action_masks()
        assert all(allowed(m, venv.action_space.nvec, a) for m, a in zip(masks, actions,
                                                                          strict=True))
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert obs.shape[0] == rewards.shape[0] == 4
        for i, info in enumerate(infos):
            if "episode" in info:
                assert terminated[i] or truncated[i]
                assert info["terminal_observation"].shape == obs[i].shape
                results.append(info.get("result"))
    assert len(results) >= 4
    assert set(results) <= {"win", "draw", "loss"}


def test_vector_alternate_learners_fly_both_sides_against_opponents():
    venv = AgentVectorEnv(DUEL, num_envs=2, learners="alternate", opponents="random",
                          fixed_spaces=FixedSpaces(), seed=0)
    assert venv.slots == [(0, "klingon-cadet"), (1, "fed-cadet")]
    venv.reset()
    venv.step(random_actions(venv, np.random.default_rng(0)))


def test_sb3_vec_env_serves_one_mask_per_slot():
    require("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from training.vec_env import SB3VecEnv

    venv = SB3VecEnv(AgentVectorEnv(DUEL, num_envs=2, fixed_spaces=FixedSpaces(), seed=0))
    venv.reset()
    assert is_masking_supported(venv)
    masks = get_action_masks(venv)
    assert masks.shape == (4, FixedSpaces().nvec.sum())
    assert np.array_equal(masks, venv.venv.action_masks())


# ---------------------------------------------------------------------- config


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(("text", "field", "problem"), [
    ("stages: []\n", "stages", "at least one"),
    ("stages:\n  - {scenario: cth-99, timesteps: 10}\n", "stages[0].scenario", "unknown scenario"),
    ("stages:\n  - {scenario: cth-01}\n", "stages[0].timesteps", "missing"),
    ("stages:\n  - {scenario: cth-01, timesteps: 10, opponent: nobody}\n",
     "stages[0].opponent", "unknown policy"),
    ("stages:\n  - {scenario: cth-01, timesteps: 10, opponent: league}\n",
     "stages[0].opponent", "league"),
    ("ppo: {n_envs: 3}\nstages:\n  - {scenario: " + DUEL + ", timesteps: 10, opponent: self}\n",
     "stages[0].opponent", "multiple"),
    ("ppo: {learning_rate: fast}\nstages:\n  - {scenario: cth-01, timesteps: 10}\n",
     "ppo.learning_rate", "expected float"),
    ("ppo: {n_env: 3}\nstages:\n  - {scenario: cth-01, timesteps: 10}\n",
     "ppo.n_env", "unknown field"),
    ("stages:\n  - {scenario: cth-01, timesteps: 10, agent: nobody}\n", "stages[0].agent",
     "not an agent"),
    ("env: {result_bonus: -1}\nstages:\n  - {scenario: cth-01, timesteps: 10}\n",
     "env.result_bonus", "must be >= 0"),
    ("device: gpu\nstages:\n  - {scenario: cth-01, timesteps: 10}\n", "device",
     "expected cpu, cuda, cuda:<n> or auto"),
    ("device: 'cpu:0'\nstages:\n  - {scenario: cth-01, timesteps: 10}\n", "device",
     "expected cpu, cuda"),
])
def test_config_errors_name_the_file_and_the_field(tmp_path, text, field, problem):
    from training.config import ConfigError, load_config

    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, text))
    assert err.value.field == field
    assert str(err.value).startswith(f"run.yaml: field '{field}'")
    assert problem in str(err.value)


def test_policy_device_defaults_to_the_cpu_and_cuda_needs_a_gpu(tmp_path):
    require("torch")
    import torch

    from training.config import load_config
    from training.sb3_train import torch_device

    stages = "stages:\n  - {scenario: cth-01, timesteps: 10}\n"
    assert load_config(write(tmp_path, stages)).device == "cpu"
    config = load_config(write(tmp_path, "device: cuda:1\n" + stages))
    assert config.device == "cuda:1"
    if torch.cuda.is_available():
        assert torch_device(config) == "cuda:1"
    else:  # SB3 alone would fall back to the CPU without a word
        with pytest.raises(ValueError, match="field 'device'.*no CUDA device"):
            torch_device(config)
    assert torch_device(load_config(write(tmp_path, "device: auto\n" + stages))) == "auto"


@pytest.mark.parametrize("name", ["smoke", "klingon-cth03", "duel-self-play", "duel-fast",
                                  "cadet-captain", "cadet-captain-v2"])
def test_shipped_training_configs_are_valid(name):
    from training.config import load_config

    config = load_config(ROOT / "configs" / "training" / f"{name}.yaml")
    assert config.stages and config.total_timesteps > 0


# ---------------------------------------------------------------------- sfb train


@pytest.mark.compiled_late
def test_sfb_train_smoke_never_takes_a_masked_action_and_writes_a_loadable_checkpoint(
    tmp_path, monkeypatch, readme_backend
):
    """On the default backend: the stages the compiled core plays (self-play, the league, whose
    Python captains fly there too) run on its vector env, the drill (the engine's robots) on
    the reference one; both are checked."""
    sb3_contrib = require("sb3_contrib")
    from sfb_env.cli import main
    from sfb_env.compiled.vector import CompiledAgentVectorEnv

    counts = {"steps": 0, "masked": 0, "compiled": 0}

    def checked(cls):
        step = cls.step

        def checked_step(self, actions):
            for mask, action in zip(self.action_masks(), np.asarray(actions), strict=True):
                counts["masked"] += not allowed(mask, self.action_space.nvec, action)
            counts["steps"] += len(self.slots)
            counts["compiled"] += cls is CompiledAgentVectorEnv
            return step(self, actions)

        monkeypatch.setattr(cls, "step", checked_step)

    checked(AgentVectorEnv)
    checked(CompiledAgentVectorEnv)
    assert main(["train", str(SMOKE), "--output", str(tmp_path), "--no-progress"]) == 0
    assert counts["steps"] >= 1792 and counts["masked"] == 0 and counts["compiled"] > 0

    final = tmp_path / "final.zip"
    model = sb3_contrib.MaskablePPO.load(final, device="cpu")
    sidecar = json.loads((tmp_path / "final.json").read_text())
    assert sidecar["algorithm"] == "MaskablePPO"
    assert sidecar["scenario"] == DUEL
    assert sidecar["observation_size"] == model.observation_space.shape[0]
    assert sidecar["mask_size"] == int(np.sum(model.action_space.nvec))
    assert list(tmp_path.glob("tb/*/events.out.tfevents.*"))
    assert list((tmp_path / "league").glob("snapshot-*.zip"))  # the league took snapshots

    from agents.sb3_policy import SB3Policy

    policy = SB3Policy(final)
    for scenario in ("cth-03", DUEL):  # padded spaces: any ship that fits
        env = sfb_env.parallel_env(scenario, illegal_action="raise")  # a masked action fails
        obs, _ = env.reset(seed=3)
        policy.reset(3)
        while env.agents:
            obs, *_ = env.step({a: policy.act(obs[a], env.action_space(a)) for a in env.agents})


@pytest.mark.slow
def test_sfb_train_resumes_from_a_mid_stage_checkpoint(tmp_path):
    require("sb3_contrib")
    from sfb_env.cli import main

    assert main(["train", str(SMOKE), "--output", str(tmp_path), "--no-progress"]) == 0
    mid = sorted((tmp_path / "checkpoints").glob("duel-self-play-*.zip"))[0]
    state = json.loads(mid.with_suffix(".json").read_text())["curriculum"]
    assert state["stage"] == 1
    out = tmp_path / "resumed"
    assert main(["train", str(SMOKE), "--output", str(out), "--resume", str(mid),
                 "--no-progress"]) == 0
    assert not list((out / "checkpoints").glob("drill-*"))  # the drill was not re-run
    assert json.loads((out / "final.json").read_text())["timesteps"] >= 1792


TINY = """name: tiny
seed: 0
torch_threads: 1
env: {fixed_spaces: {positions: 12, max_speed: 31, target_slots: 8, threat_slots: 4}}
ppo: {n_envs: 4, n_steps: 32, batch_size: 64, n_epochs: 1, net_arch: [32, 32]}
evaluation: {every: 0, games: 1}
checkpoints: {every: 0}
stages:
  - {name: self-play, scenario: duel-klingon-vs-federation, opponent: self, timesteps: 128}
"""


@pytest.mark.compiled_late
def test_sfb_train_init_starts_a_new_curriculum_from_another_runs_weights(tmp_path):
    sb3_contrib = require("sb3_contrib")
    from sfb_env.cli import main

    config = write(tmp_path, TINY)
    assert main(["train", str(config), "--output", str(tmp_path / "a"), "--no-progress"]) == 0
    first = tmp_path / "a" / "final.zip"
    other = tmp_path / "other.yaml"
    other.write_text(TINY.replace("name: tiny", "name: other").replace(
        "scenario: duel-klingon-vs-federation", "scenario: duel-klingon-vs-kzinti").replace(
        "n_steps: 32, batch_size: 64,", "n_steps: 16, batch_size: 32, learning_rate: 1.0e-4,"))
    assert main(["train", str(other), "--output", str(tmp_path / "b"), "--init", str(first),
                 "--no-progress"]) == 0
    sidecar = json.loads((tmp_path / "b" / "final.json").read_text())
    assert sidecar["run"] == "other" and sidecar["curriculum"]["stage"] == 1
    # its own duel, and the first run's, which the weights also fly (sfb bench accepts both)
    assert sidecar["scenarios"] == ["duel-klingon-vs-kzinti", DUEL]
    # the loaded model counts on from the first run's 128 timesteps: a fresh one would say 128
    assert sidecar["timesteps"] >= 256
    trained = sb3_contrib.MaskablePPO.load(tmp_path / "b" / "final.zip", device="cpu")
    assert trained.num_timesteps == sidecar["timesteps"]
    # under the new config's PPO settings, not the checkpoint's (nothing of it ignored)
    assert (trained.n_steps, trained.batch_size, trained.learning_rate) == (16, 32, 1.0e-4)
    assert trained.policy.optimizer.param_groups[0]["lr"] == pytest.approx(1.0e-4)


@pytest.mark.compiled_late
def test_sfb_train_init_refuses_a_checkpoint_of_another_network(tmp_path, capsys):
    require("sb3_contrib")
    from sfb_env.cli import main

    config = write(tmp_path, TINY)
    assert main(["train", str(config), "--output", str(tmp_path / "a"), "--no-progress"]) == 0
    wider = tmp_path / "wider.yaml"
    wider.write_text(TINY.replace("net_arch: [32, 32]", "net_arch: [64, 64]"))
    assert main(["train", str(wider), "--init", str(tmp_path / "a" / "final.zip"),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "field 'ppo.net_arch': [64, 64]" in err and "has [32, 32]" in err


def test_sfb_train_refuses_init_with_resume_and_a_missing_init(tmp_path, capsys):
    from sfb_env.cli import main

    config = write(tmp_path, TINY)
    missing = str(tmp_path / "nowhere.zip")
    assert main(["train", str(config), "--init", missing, "--resume", missing]) == 2
    assert "--resume and --init: give one" in capsys.readouterr().err
    assert main(["train", str(config), "--init", missing]) == 2
    assert f"--init {missing}: no such checkpoint file" in capsys.readouterr().err


def test_evaluation_uses_the_bench_harness_where_it_can_fly_the_opponent():
    from training.evaluation import bench_matches

    duel = bench_matches(DUEL, ["klingon-cadet", "fed-cadet"], "me.zip", "doctrine")
    assert [(m.blue, m.red, blue) for m, blue in duel] == [
        ("me.zip", "doctrine", True), ("doctrine", "me.zip", False)]
    (raid, blue), = bench_matches("cth-03", ["destruction"], "me.zip", "random")
    assert (raid.blue, raid.red, blue) == ("me.zip", "robot", True)  # the convoy's robots
    assert bench_matches(DUEL, ["fed-cadet"], "me.zip", "league") is None
    assert bench_matches(DUEL, ["fed-cadet"], "me.zip", "robot:idle") is None


def test_league_state_stores_snapshots_by_name_and_resolves_them_where_the_run_now_lives(
    tmp_path,
):
    require("sb3_contrib")
    from training.config import LeagueConfig
    from training.league import League

    old = League(LeagueConfig(), tmp_path / "old" / "league")
    snap = old.snapshot_path(1234)
    snap.write_bytes(b"zip")
    old.add_snapshot(snap)
    outside = tmp_path / "elsewhere.zip"
    outside.write_bytes(b"zip")
    old.add_snapshot(outside)
    state = old.state()
    assert state["snapshots"] == ["snapshot-000001234.zip", str(outside)]
    moved = tmp_path / "moved" / "league"
    moved.mkdir(parents=True)
    (moved / "snapshot-000001234.zip").write_bytes(b"zip")
    new = League(LeagueConfig(), moved)
    new.load_state(json.loads(json.dumps(state)))
    assert new.snapshots == [str(moved / "snapshot-000001234.zip"), str(outside)]
    gone = League(LeagueConfig(), tmp_path / "empty")
    gone.load_state(state)
    assert gone.snapshots == [str(outside)]  # a missing snapshot leaves the pool


def test_evaluation_reports_each_side_and_the_every_side_gate_takes_the_worst():
    require("sb3_contrib")
    from training.evaluation import EvalResult

    result = EvalResult()
    for outcome, side in [("win", "klingon-cadet")] * 4 + [("loss", "fed-cadet")] * 3 + [
            ("win", "fed-cadet"), (None, "fed-cadet")]:
        result.count(outcome, side=side)
    assert (result.wins, result.losses, result.undecided, result.games) == (5, 3, 1, 9)
    report = result.as_dict()
    assert report["win_rate/klingon-cadet"] == 1.0
    assert report["win_rate/fed-cadet"] == 0.2
    assert result.gate_rate("overall") == 5 / 9
    assert result.gate_rate("every_side") == 0.2


def test_evaluation_gate_must_be_a_known_one(tmp_path):
    require("sb3_contrib")
    from training.config import ConfigError, load_config

    path = tmp_path / "bad.yaml"
    path.write_text("stages:\n  - {scenario: cth-01, timesteps: 10}\n"
                    "evaluation: {gate: best_side}\n")
    with pytest.raises(ConfigError, match="evaluation.*gate.*best_side"):
        load_config(path)
