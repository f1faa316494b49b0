"""``training.average_checkpoints``: the mean of checkpoints' policy weights (a model soup),
the rest of the last input kept, and inputs of other networks or spaces refused."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from conftest import require

CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"
V5, V6 = CHECKPOINTS / "graduate-captain-v5.zip", CHECKPOINTS / "graduate-captain-v6.zip"


def _state(path: Path) -> dict:
    from training.average_checkpoints import _policy_state

    return _policy_state(path)


def test_the_mean_of_two_checkpoints_weights_and_the_last_ones_other_entries(tmp_path):
    require("torch")
    import torch

    from training.average_checkpoints import average_checkpoints

    out = average_checkpoints(tmp_path / "soup.zip", [V5, V6])
    mean, a, b = _state(out), _state(V5), _state(V6)
    assert mean.keys() == b.keys()
    moved = 0
    for key, tensor in mean.items():
        if tensor.is_floating_point():
            expected = ((a[key].double() + b[key].double()) / 2).to(tensor.dtype)
            assert torch.equal(tensor, expected), key
            moved += int(not torch.equal(a[key], b[key]))
    assert moved > 0  # v5 and v6 differ: the test would see a copy
    with zipfile.ZipFile(out) as soup, zipfile.ZipFile(V6) as last:
        assert soup.namelist() == last.namelist()
        for name in soup.namelist():
            if name != "policy.pth":  # the optimizer state, PPO settings, timesteps: v6's
                assert soup.read(name) == last.read(name), name
    side = json.loads(out.with_suffix(".json").read_text())
    v6 = json.loads(V6.with_suffix(".json").read_text())
    assert side["timesteps"] == v6["timesteps"] and side["fixed_spaces"] == v6["fixed_spaces"]
    assert [entry["timesteps"] for entry in side["averaged_from"]] == [
        json.loads(V5.with_suffix(".json").read_text())["timesteps"], v6["timesteps"]]


def test_an_averaged_checkpoint_flies_as_a_captain_with_unmasked_actions(tmp_path):
    require("sb3_contrib")
    from agents import bench
    from training.average_checkpoints import average_checkpoints

    out = str(average_checkpoints(tmp_path / "soup.zip", [V5, V6]))
    spec = bench.GameSpec(0, 0, "grad-lyran-vs-romulan", out, "romulan-doctrine", 0)
    result = bench.play_game(spec)  # check_action raises on a masked choice
    assert result.impulses > 0


def test_checkpoints_of_other_spaces_are_refused_naming_the_field(tmp_path, capsys):
    require("torch")
    from training.average_checkpoints import average_checkpoints, main

    cadet = CHECKPOINTS / "cadet-captain-v2.zip"
    with pytest.raises(ValueError, match="observation_size"):
        average_checkpoints(tmp_path / "x.zip", [cadet, V6])
    with pytest.raises(ValueError, match="two checkpoints"):
        average_checkpoints(tmp_path / "x.zip", [V6])
    with pytest.raises(ValueError, match="the output is one of the inputs"):
        average_checkpoints(V6, [V5, V6])
    assert main([str(tmp_path / "x.zip"), str(cadet), str(V6)]) == 2
    assert "observation_size" in capsys.readouterr().err
    assert not (tmp_path / "x.zip").exists()


def test_tensors_of_another_shape_are_refused_naming_the_tensor():
    require("torch")
    import torch

    from training.average_checkpoints import average_state

    a = {"w": torch.zeros(2, 3), "steps": torch.tensor(4)}
    b = {"w": torch.ones(2, 3), "steps": torch.tensor(9)}
    mean = average_state([a, b], ["a", "b"])
    assert torch.equal(mean["w"], torch.full((2, 3), 0.5)) and int(mean["steps"]) == 9
    with pytest.raises(ValueError, match=r"w has shape \(3, 2\)"):
        average_state([{"w": torch.zeros(3, 2), "steps": torch.tensor(4)}, b], ["a", "b"])
    with pytest.raises(ValueError, match="differ from b's"):
        average_state([{"v": torch.zeros(2, 3)}, b], ["a", "b"])
