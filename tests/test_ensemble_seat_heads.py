"""Folding seat heads into one (``training.ensemble_seat_heads``): the folded seat acts with the
mean of its members' logits, every other seat exactly as the base; a member from before a view
block widens into it; members of another shared policy, without the seat or with a deep head
are refused, naming them; the folded checkpoint trains on."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_seat_heads import SEAT, _both_seats, _config, _probs, shared  # noqa: F401 (fixture)

FOE_SEAT = ["klingon", "hydran"]


def _logits(policy, obs: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        return policy.get_distribution(torch.as_tensor(obs))._logits.numpy()


def _head_run(tmp_path: Path, shared: Path, name: str, seats: list, hidden,  # noqa: F811
              views: tuple[str, ...] = ()) -> Path:
    """A seat-head run from ``shared``, its heads then set to random weights (a tiny run barely
    moves them), so that each member acts differently."""
    import torch
    from sb3_contrib import MaskablePPO

    from sfb_env.cli import main

    config = _config(tmp_path, name, seats, seat_head_hidden=hidden, views=views)
    assert main(["train", str(config), "--output", str(tmp_path / name), "--init", str(shared),
                 "--no-progress"]) == 0
    path = tmp_path / name / "final.zip"
    model = MaskablePPO.load(path, device="cpu")
    torch.manual_seed(len(name))
    with torch.no_grad():
        for name_, param in model.policy.action_net.named_parameters():
            if not name_.startswith("base."):
                param.normal_(std=0.5)
    model.save(path)
    return path


@pytest.fixture(scope="module")
def members(tmp_path_factory, shared) -> dict[str, Path]:  # noqa: F811
    tmp = tmp_path_factory.mktemp("members")
    return {"a": _head_run(tmp, shared, "a", [SEAT, FOE_SEAT], [12, 5]),
            "b": _head_run(tmp, shared, "bb", [SEAT], 3),
            "c": _head_run(tmp, shared, "ccc", [FOE_SEAT, SEAT], [4, 0])}


def test_a_folded_seat_acts_with_the_mean_of_its_members_logits_and_others_as_the_base(
        tmp_path, members):
    from sb3_contrib import MaskablePPO

    from training.ensemble_seat_heads import main as fold

    out = tmp_path / "ens.zip"
    assert fold([str(out), str(members["a"]), "--seat", "hydran:klingon",
                 *map(str, members.values())]) == 0
    got = MaskablePPO.load(out, device="cpu").policy
    base = MaskablePPO.load(members["a"], device="cpu").policy
    assert got.seat_heads == base.seat_heads and got.hidden == [12 + 3, 5]  # c's head: no units
    obs, masks, hydran = _both_seats(tmp_path, "obs")
    want = np.mean([_logits(MaskablePPO.load(p, device="cpu").policy, obs)
                    for p in members.values()], axis=0)
    mine = _logits(got, obs)
    np.testing.assert_allclose(mine[hydran], want[hydran], rtol=1e-5, atol=1e-5)
    assert not np.allclose(mine[hydran], _logits(base, obs)[hydran], atol=1e-3)
    # the other seat flies as the base, bit for bit
    np.testing.assert_array_equal(_probs(got, obs, masks)[~hydran],
                                  _probs(base, obs, masks)[~hydran])
    # the mode is the action the members' summed masked log-probabilities pick
    import torch

    from training.fused_distribution import FusedMaskableMultiCategorical

    dims = got.action_space.nvec
    total = 0
    for path in members.values():
        dist = FusedMaskableMultiCategorical(dims).proba_distribution(
            torch.as_tensor(_logits(MaskablePPO.load(path, device="cpu").policy, obs)))
        dist.apply_masking(masks)
        total = total + np.concatenate([lp.numpy().reshape(len(obs), -1)
                                        for lp in dist.log_probs], axis=1)
    starts = np.cumsum([0, *dims])
    picked = np.stack([total[:, s:e].argmax(1)
                       for s, e in zip(starts[:-1], starts[1:], strict=True)], axis=1)
    action = got.predict(obs, action_masks=masks, deterministic=True)[0]
    np.testing.assert_array_equal(action[hydran], picked[hydran])
    side = json.loads(out.with_suffix(".json").read_text())
    assert side["ensembles"][0]["seat"] == SEAT
    assert [m["path"] for m in side["ensembles"][0]["members"]] == [
        str(p) for p in members.values()]


def test_a_member_without_a_view_block_widens_into_the_base(tmp_path, shared,  # noqa: F811
                                                            members):
    from sb3_contrib import MaskablePPO

    from sfb_env.env.padding import FixedSpaces
    from training.ensemble_seat_heads import ensemble_seat_heads

    wide = _head_run(tmp_path, shared, "wide", [SEAT], 6, views=("enemy_fire",))
    out = ensemble_seat_heads(tmp_path / "ens.zip", wide, [(SEAT, [wide, members["b"]])])
    got = MaskablePPO.load(out, device="cpu").policy
    spaces = FixedSpaces(**json.loads(wide.with_suffix(".json").read_text())["fixed_spaces"])
    narrow = FixedSpaces(**json.loads(members["b"].with_suffix(".json").read_text())
                         ["fixed_spaces"])
    columns = spaces.columns_of(narrow)
    rng = np.random.default_rng(0)
    n, races = got.observation_space.shape[0], len(spaces.races)
    obs = rng.normal(size=(6, n)).astype(np.float32)  # any inputs, on the Hydran's seat
    obs[:, n - 2 * races:] = 0
    obs[:, n - 2 * races + spaces.races.index("hydran")] = 1
    obs[:, n - races + spaces.races.index("klingon")] = 1
    want = (_logits(MaskablePPO.load(wide, device="cpu").policy, obs)
            + _logits(MaskablePPO.load(members["b"], device="cpu").policy, obs[:, columns])) / 2
    np.testing.assert_allclose(_logits(got, obs), want, rtol=1e-5, atol=1e-5)


def test_the_folded_checkpoint_trains_on_with_its_sizes(tmp_path, members):
    from sfb_env.cli import main
    from training.ensemble_seat_heads import ensemble_seat_heads

    out = ensemble_seat_heads(tmp_path / "ens.zip", members["a"],
                              [(SEAT, [members["a"], members["b"]])])
    config = _config(tmp_path, "on", [SEAT, FOE_SEAT], seat_head_hidden=[15, 5])
    assert main(["train", str(config), "--output", str(tmp_path / "on"), "--init", str(out),
                 "--no-progress"]) == 0


def test_fold_refuses_bad_members_naming_them(tmp_path, shared, members, capsys):  # noqa: F811
    import torch
    from sb3_contrib import MaskablePPO

    from training.ensemble_seat_heads import main as fold

    deep = _head_run(tmp_path, shared, "deep", [SEAT], [[8, 4]])
    other = tmp_path / "other.zip"
    model = MaskablePPO.load(members["b"], device="cpu")
    with torch.no_grad():
        model.policy.mlp_extractor.policy_net[0].bias.add_(1.0)
    model.save(other)
    other.with_suffix(".json").write_text(members["b"].with_suffix(".json").read_text())
    a, b = str(members["a"]), str(members["b"])
    cases = [
        ([a, "--seat", "hydran:klingon", a, str(deep)], "2 hidden layers"),
        ([a, "--seat", "hydran:klingon", a, str(other)], "shared tensor"),
        ([b, "--seat", "klingon:hydran", a, b], "has no head for it"),
        ([a, "--seat", "klingon:hydran", a, b], "no head for seat klingon:hydran"),
        ([a, "--seat", "hydran:klingon", a], "two members or more"),
        ([a, "--seat", "hydran", a, b], "a seat is RACE:FOE"),
    ]
    for k, (args, problem) in enumerate(cases):
        assert fold([str(tmp_path / f"x{k}.zip"), *args]) == 2
        assert problem in capsys.readouterr().err
    assert fold([a, a, "--seat", "hydran:klingon", a, b]) == 2  # the output is an input
