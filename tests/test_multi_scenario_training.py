"""Multi-scenario training stages (issue 15): ``scenarios: [...]`` in a stage, the concatenated
vector env (one compiled vector env per scenario, slots split evenly), the checkpoint sidecar
listing every scenario, and a tiny training run over two duels on the compiled core."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import require
from gymnasium import spaces

from training.multi_env import ConcatAgentVectorEnv

ROOT = Path(__file__).resolve().parents[1]
CADET = ROOT / "configs" / "training" / "cadet-captain.yaml"
DUELS = ["duel-klingon-vs-federation", "duel-kzinti-vs-orion"]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(text)
    return path


def two_duel_config(**stage: object) -> dict:
    return {"env": {"backend": "compiled"},
            "ppo": {"n_envs": 8, "n_steps": 8, "batch_size": 32, "n_epochs": 1,
                    "net_arch": [32]},
            "evaluation": {"every": 0, "games": 2},
            "checkpoints": {"every": 0},
            "stages": [{"scenarios": DUELS, "timesteps": 64, **stage}]}


# ---------------------------------------------------------------------- config


@pytest.mark.parametrize(("text", "field", "problem"), [
    ("stages:\n  - {scenario: cth-01, scenarios: [cth-01], timesteps: 10}\n",
     "stages[0].scenarios", "not both"),
    ("stages:\n  - {scenarios: cth-01, timesteps: 10}\n", "stages[0].scenarios",
     "non-empty list"),
    ("stages:\n  - {scenarios: [], timesteps: 10}\n", "stages[0].scenarios", "non-empty list"),
    (f"stages:\n  - {{scenarios: [{DUELS[0]}, {DUELS[0]}], timesteps: 10}}\n",
     "stages[0].scenarios[1]", "duplicate scenario"),
    (f"stages:\n  - {{scenarios: [{DUELS[0]}, cth-99], timesteps: 10}}\n",
     "stages[0].scenarios[1]", "unknown scenario"),
    (f"ppo: {{n_envs: 9}}\nstages:\n  - {{scenarios: {DUELS}, timesteps: 10}}\n",
     "stages[0].scenarios", "multiple"),
    (f"ppo: {{n_envs: 6}}\nstages:\n  - {{scenarios: {DUELS}, timesteps: 10, opponent: self}}\n",
     "stages[0].opponent", "3 slots"),
    (f"stages:\n  - {{scenarios: {DUELS}, timesteps: 10, agent: klingon-cadet}}\n",
     "stages[0].agent", "not an agent of duel-kzinti-vs-orion"),
    (f"env: {{fixed_spaces: null}}\nstages:\n  - {{scenarios: {DUELS}, timesteps: 10}}\n",
     "stages[0].scenarios", "fixed_spaces"),
])
def test_multi_scenario_config_errors_name_the_file_and_the_field(tmp_path, text, field,
                                                                  problem):
    from training.config import ConfigError, load_config

    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, text))
    assert err.value.field == field
    assert str(err.value).startswith(f"run.yaml: field '{field}'")
    assert problem in str(err.value)


def test_a_single_scenario_stage_lists_its_one_scenario():
    from training.config import parse_config

    config = parse_config({"stages": [{"scenario": DUELS[0], "timesteps": 10}]})
    assert config.stages[0].scenarios == (DUELS[0],)


def test_cadet_captain_config_trains_on_all_six_duels_on_the_compiled_core():
    from training.config import load_config

    config = load_config(CADET)
    assert config.env.backend == "compiled" and config.ppo.fused_distribution
    for stage in config.stages:
        assert len(stage.scenarios) == 6 and stage.scenario == stage.scenarios[0]
        assert stage.agent == "alternate" or stage.opponent == "self"


# ---------------------------------------------------------------------- the concatenated env


class FakePart:
    """A vector env whose observations are its id and whose step records its actions."""

    def __init__(self, ident: int, slots: int, nvec: list[int]) -> None:
        self.ident, self.num_slots, self.num_envs = ident, slots, slots
        self.observation_space = spaces.Box(0, 1, (3,), np.float32)
        self.action_space = spaces.MultiDiscrete(nvec)
        self.actions: np.ndarray | None = None

    def reset(self, seed=None):
        self.seed = seed
        return np.full((self.num_slots, 3), self.ident, np.float32)

    def action_masks(self):
        return np.full((self.num_slots, int(self.action_space.nvec.sum())), self.ident == 1)

    def step(self, actions):
        self.actions = np.asarray(actions)
        obs = np.full((self.num_slots, 3), self.ident, np.float32)
        flags = np.full(self.num_slots, self.ident == 1)
        infos = [{"part": self.ident} for _ in range(self.num_slots)]
        return obs, np.full(self.num_slots, self.ident, np.float32), flags, ~flags, infos

    def close(self):
        pass


def test_concatenated_env_splits_actions_and_joins_slots_in_part_order():
    parts = [FakePart(0, 2, [3, 4]), FakePart(1, 3, [3, 4])]
    venv = ConcatAgentVectorEnv(parts, ["a", "b"])
    assert venv.num_slots == 5 and venv.slice_of(1) == slice(2, 5)
    obs = venv.reset(seed=10)
    assert obs[:, 0].tolist() == [0, 0, 1, 1, 1]
    assert parts[0].seed == 10 and parts[1].seed not in (None, 10)  # a seed per part
    assert venv.action_masks().shape == (5, 7)
    assert venv.action_masks()[:, 0].tolist() == [False, False, True, True, True]
    actions = np.arange(10).reshape(5, 2)
    obs, rewards, terminated, truncated, infos = venv.step(actions)
    assert np.array_equal(parts[0].actions, actions[:2])
    assert np.array_equal(parts[1].actions, actions[2:])
    assert rewards.tolist() == [0, 0, 1, 1, 1]
    assert terminated.tolist() == [False, False, True, True, True]
    assert truncated.tolist() == [True, True, False, False, False]
    assert [i["part"] for i in infos] == [0, 0, 1, 1, 1]


def test_concatenated_env_refuses_parts_with_different_spaces_naming_them():
    with pytest.raises(ValueError, match="'b'.*'a'.*fixed_spaces"):
        ConcatAgentVectorEnv([FakePart(0, 2, [3, 4]), FakePart(1, 2, [3, 5])], ["a", "b"])


@pytest.mark.compiled_late
@pytest.mark.parametrize("opponent", ["random", "self"])
def test_multi_scenario_stage_splits_its_slots_over_one_compiled_env_per_duel(opponent):
    require("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks

    from sfb_env.compiled.vector import CompiledAgentVectorEnv
    from sfb_env.env.padding import FixedSpaces
    from training.config import parse_config
    from training.curriculum import Curriculum
    from training.vec_env import SB3VecEnv

    stage = {"opponent": opponent} if opponent == "self" else {"agent": "alternate"}
    curriculum = Curriculum(parse_config(two_duel_config(**stage)))
    venv = curriculum.make_env(seed=0)
    assert isinstance(venv, ConcatAgentVectorEnv)
    assert all(isinstance(p, CompiledAgentVectorEnv) for p in venv.parts)
    assert [p.num_slots for p in venv.parts] == [4, 4]
    assert [p.num_envs for p in venv.parts] == ([2, 2] if opponent == "self" else [4, 4])
    assert curriculum.agents(curriculum.stage) == ["klingon-cadet", "fed-cadet",
                                                   "kzinti-cadet", "orion-cadet"]
    sb3 = SB3VecEnv(venv, seed=0)
    fixed = FixedSpaces()
    obs = sb3.reset()
    assert obs.shape == (8, fixed.observation_size)
    for _ in range(20):
        masks = get_action_masks(sb3)
        assert masks.shape == (8, fixed.nvec.sum())
        actions = np.stack([sb3.action_space.sample(mask=_split(m, fixed.nvec))
                            for m in masks])
        for part, rows in zip(venv.parts, (masks[:4], masks[4:]), strict=True):
            assert np.array_equal(part.action_masks(), rows)
        obs, rewards, dones, infos = sb3.step(actions)
        assert obs.shape == (8, fixed.observation_size) and len(infos) == 8


def _split(mask: np.ndarray, nvec: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(m.astype(np.int8) for m in np.split(mask, np.cumsum(nvec)[:-1]))


def test_merged_evaluation_keeps_each_duel_and_side_and_the_gate_takes_the_worst():
    from training.evaluation import EvalResult

    total = EvalResult()
    for duel, outcomes in zip(DUELS, (["win", "win", "loss"], ["win", "win", "win"]),
                              strict=True):
        part = EvalResult()
        for n, outcome in enumerate(outcomes):
            part.count(outcome, side="blue" if n < 2 else "red")
        total.merge(part, prefix=duel)
    assert total.games == 6 and total.wins == 5
    assert sorted(total.per_side) == [f"{d}/{s}" for d in DUELS for s in ("blue", "red")]
    assert total.gate_rate("every_side") == 0.0  # klingon-vs-federation's red lost
    assert total.as_dict()[f"win_rate/{DUELS[1]}/red"] == 1.0


# ---------------------------------------------------------------------- checkpoints


def test_check_checkpoint_accepts_any_listed_scenario_and_names_the_list_otherwise(tmp_path):
    from agents.sb3_policy import check_checkpoint, write_sidecar

    path = tmp_path / "multi.zip"
    path.write_bytes(b"")
    write_sidecar(path, {"scenario": DUELS[0], "scenarios": DUELS})
    for duel in DUELS:
        check_checkpoint(path, duel)
    with pytest.raises(ValueError, match="scenarios duel-klingon-vs-federation, "
                                         "duel-kzinti-vs-orion, not 'duel-klingon-vs-orion'"):
        check_checkpoint(path, "duel-klingon-vs-orion")
    write_sidecar(path, {"scenario": DUELS[0]})  # a single-scenario sidecar (before issue 15)
    check_checkpoint(path, DUELS[0])
    with pytest.raises(ValueError, match=f"scenario '{DUELS[0]}', not '{DUELS[1]}'"):
        check_checkpoint(path, DUELS[1])


# ---------------------------------------------------------------------- training


@pytest.mark.compiled_late
def test_tiny_training_run_over_two_duels_evaluates_each_and_lists_them_in_the_sidecar(
    tmp_path,
):
    require("sb3_contrib")
    from training.config import parse_config
    from training.evaluation import EvalResult
    from training.sb3_train import StageCallback, train

    seen: list[EvalResult] = []
    evaluate = StageCallback._evaluate

    def recorded(self, scenario, opponent):
        result = evaluate(self, scenario, opponent)
        seen.append((scenario, result))
        return result

    config = parse_config(two_duel_config(agent="alternate"), "tiny")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(StageCallback, "_evaluate", recorded)
        final = train(config, output=tmp_path, progress=False)
    assert [s for s, _ in seen] == DUELS
    assert all(set(r.per_side) == {"blue", "red"} for _, r in seen)  # both sides of each duel
    sidecar = json.loads(final.with_suffix(".json").read_text())
    assert sidecar["scenarios"] == DUELS and sidecar["scenario"] == DUELS[0]
    assert sidecar["timesteps"] >= 64
    assert set(sidecar["agents"]) == {"klingon-cadet", "fed-cadet", "kzinti-cadet",
                                      "orion-cadet"}


# ---------------------------------------------------------------------- side bench


def test_side_bench_plays_each_side_against_the_other_ships_race_doctrine():
    from training.side_bench import bench_sides, markdown

    records = bench_sides("random-fighter", ["duel-klingon-vs-kzinti"], ["doctrine"], games=1)
    assert [(r.side, r.ship, r.opponent) for r in records] == [
        ("blue", "klingon", "kzinti-doctrine"), ("red", "kzinti", "klingon-doctrine")]
    assert all(r.games == 1 for r in records)
    table = markdown(records)
    assert "| duel-klingon-vs-kzinti | kzinti (red) | `klingon-doctrine` |" in table


def test_side_bench_plays_one_side_of_a_duel_named_with_its_side():
    from training.side_bench import bench_sides

    records = bench_sides("random-fighter", ["duel-klingon-vs-kzinti:red"], ["doctrine"],
                          games=1)
    assert [(r.side, r.ship, r.opponent, r.games) for r in records] == [
        ("red", "kzinti", "klingon-doctrine", 1)]
    with pytest.raises(ValueError, match="blue or red"):
        bench_sides("random-fighter", ["duel-klingon-vs-kzinti:green"], ["doctrine"], games=1)
