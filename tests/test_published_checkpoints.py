"""The trained captains published under checkpoints/ (issue 6): they load through the policy
registry's checkpoint path, fly only unmasked actions and do what docs/training.md reports."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import require

from agents import bench
from sfb_env.env.padding import FixedSpaces

CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"
PUBLISHED = sorted(CHECKPOINTS.glob("*.zip"))

# The games fly on the backend ``sfb bench`` gives them (``auto``: the compiled core, the same
# battles as the reference engine by the parity harness), as the benches docs/training.md
# reports were played; after the core is built (conftest).
pytestmark = [pytest.mark.usefixtures("readme_backend"), pytest.mark.compiled_late]


@pytest.fixture(autouse=True)
def _own_envs(monkeypatch):
    """The bench's env cache for this test alone: its envs are ``auto``'s, not to be met by a
    later test of the same worker that flies the reference engine."""
    monkeypatch.setattr(bench, "_ENVS", {})


def _play(scenario: str, blue: str, red: str, seeds: range) -> list[bench.GameResult]:
    specs = [bench.GameSpec(i, 0, scenario, blue, red, s) for i, s in enumerate(seeds)]
    return [bench.play_game(spec) for spec in specs]  # check_action: a masked choice raises


def _same_game(scenario: str, before: str, after: str, seed: int):
    """The game of ``seed`` against random-fighter with each of two published checkpoints flying
    blue: their two results."""
    paths = [str(CHECKPOINTS / name) for name in (before, after)]
    return [_play(scenario, path, "random-fighter", range(seed, seed + 1))[0] for path in paths]


def test_published_checkpoints_exist_with_their_sidecars():
    assert PUBLISHED, "no checkpoints published under checkpoints/"
    for path in PUBLISHED:
        sidecar = json.loads(path.with_suffix(".json").read_text())
        assert sidecar["algorithm"] == "MaskablePPO"
        assert path.stat().st_size < 8 * 2**20  # "a few MB"


def test_klingon_cth03_captain_destroys_or_drives_off_the_convoy():
    require("sb3_contrib")
    path = CHECKPOINTS / "klingon-cth03.zip"
    results = _play("cth-03", str(path), bench.ROBOT, range(4))
    assert [r.result for r in results] == ["win"] * 4  # 200-0-0 over seeds 0..199
    assert min(r.damage_dealt for r in results) > max(r.damage_taken for r in results)


def test_duel_captain_as_klingon_beats_the_federation_doctrine():
    require("sb3_contrib")
    path = str(CHECKPOINTS / "duel-klingon-vs-federation.zip")
    results = _play("duel-klingon-vs-federation", path, "federation-doctrine", range(3))
    assert [r.result for r in results] == ["win"] * 3  # 200-0-0 over seeds 0..199


def test_duel_captain_flies_the_federation_ship_with_unmasked_actions_only():
    require("sb3_contrib")
    path = str(CHECKPOINTS / "duel-klingon-vs-federation.zip")
    results = _play("duel-klingon-vs-federation", "random", path, range(2))
    assert all(r.impulses > 0 for r in results)  # check_action raised on any masked choice


def test_bench_flies_a_checkpoint_in_parallel_workers(capsys):
    """A child forked after torch started its threads would hang: the pool spawns instead."""
    require("sb3_contrib")
    from sfb_env.cli import main

    path = str(CHECKPOINTS / "klingon-cth03.zip")
    assert main(["bench", "cth-03", "--blue", path, "--games", "2", "--seed", "0",
                 "--workers", "2", "--no-progress"]) == 0
    assert "2-0-0" in capsys.readouterr().out


def test_cadet_captain_v2_beats_the_doctrine_where_its_bench_says_it_always_does():
    """docs/training.md: 200-0-0 flying the Orion against the Kzinti doctrine and the Kzinti
    against the Federation doctrine (both on red); the bench reports blue's result."""
    require("sb3_contrib")
    path = str(CHECKPOINTS / "cadet-captain-v2.zip")
    orion = _play("duel-kzinti-vs-orion", "kzinti-doctrine", path, range(2))
    kzinti = _play("duel-federation-vs-kzinti", "federation-doctrine", path, range(2))
    assert [r.result for r in orion + kzinti] == ["loss"] * 4


@pytest.mark.parametrize(("checkpoint", "blue_row", "red_row"), [
    # docs/training.md, session 23: the ISC against the Hydran doctrine (blue), the Orion
    # against the Hydran doctrine (red)
    ("graduate-captain-v1.zip", ("grad-isc-vs-hydran", "hydran-doctrine"),
     ("grad-hydran-vs-orion", "hydran-doctrine")),
    # session 24, the focused league: the ISC against the Lyran doctrine, the Kzinti against
    # the Hydran doctrine
    ("graduate-captain-v2.zip", ("grad-isc-vs-lyran", "lyran-doctrine"),
     ("grad-hydran-vs-kzinti", "hydran-doctrine")),
    # session 26, seat slots: the ISC against the Hydran doctrine, the Klingon against the
    # Lyran doctrine
    ("graduate-captain-v3.zip", ("grad-isc-vs-hydran", "hydran-doctrine"),
     ("grad-lyran-vs-klingon", "lyran-doctrine")),
    # session 28, the identity block: the ISC against the Hydran doctrine, the Gorn against
    # the Lyran doctrine
    ("graduate-captain-v4.zip", ("grad-isc-vs-hydran", "hydran-doctrine"),
     ("grad-lyran-vs-gorn", "lyran-doctrine")),
    # session 29, the identity run at 33M: the ISC against the Hydran doctrine, the Orion
    # against the Lyran doctrine
    ("graduate-captain-v5.zip", ("grad-isc-vs-hydran", "hydran-doctrine"),
     ("grad-lyran-vs-orion", "lyran-doctrine")),
    # session 30, v5 at a third of the learning rate (34M): the Lyran against the Romulan
    # doctrine, the Lyran against the ISC doctrine
    ("graduate-captain-v6.zip", ("grad-lyran-vs-romulan", "romulan-doctrine"),
     ("grad-isc-vs-lyran", "isc-doctrine")),
    # session 32, v6 with seat heads: the Hydran against the Gorn doctrine (a seat with a
    # head), the Lyran against the ISC doctrine (v6's seat, flown exactly as v6)
    ("graduate-captain-v7.zip", ("grad-hydran-vs-gorn", "gorn-doctrine"),
     ("grad-isc-vs-lyran", "isc-doctrine")),
    # session 34, v7 with the map-edge guard: two rows the guard took to 200-0-0 against
    # random-fighter (v7: 193-0-7 and 193-0-7)
    ("graduate-captain-v8.zip", ("grad-hydran-vs-federation", "random-fighter"),
     ("grad-lyran-vs-hydran", "random-fighter")),
])
def test_graduate_captains_fly_graduate_ships_where_their_bench_says_they_always_win(
    checkpoint, blue_row, red_row
):
    """Two 200-0-0 rows of each graduate captain's bench, one a side: the first two games of
    each (the bench reports blue's result)."""
    require("sb3_contrib")
    path = str(CHECKPOINTS / checkpoint)
    blue = _play(blue_row[0], path, blue_row[1], range(2))
    red = _play(red_row[0], red_row[1], path, range(2))
    assert [r.result for r in blue] == ["win"] * 2
    assert [r.result for r in red] == ["loss"] * 2


def test_v8_is_v7s_weights_flown_with_the_map_edge_guard():
    """docs/training.md "graduate-captain-v8": the same network as v7, byte for byte, and the
    same sidecar but for ``"guard": "map-edge"``."""
    v7, v8 = CHECKPOINTS / "graduate-captain-v7.zip", CHECKPOINTS / "graduate-captain-v8.zip"
    assert v8.read_bytes() == v7.read_bytes()
    side7 = json.loads(v7.with_suffix(".json").read_text())
    side8 = json.loads(v8.with_suffix(".json").read_text())
    assert side7.get("guard", "none") == "none" and side8.pop("guard") == "map-edge"
    assert side8 == side7


def test_map_edge_guard_keeps_v7_on_the_map_where_it_flew_off():
    """docs/training.md "The map-edge guard": in grad-hydran-vs-gorn seed 85 against
    random-fighter, v7's Hydran leaves the map while ahead on damage and loses (C1.4); v8, the
    same checkpoint with ``"guard": "map-edge"`` in its sidecar, stays on the map and wins."""
    require("sb3_contrib")
    plain, kept = _same_game("grad-hydran-vs-gorn", "graduate-captain-v7.zip",
                             "graduate-captain-v8.zip", 85)
    assert (plain.result, plain.reason) == ("loss", "hydran left the map")
    assert plain.damage_dealt > plain.damage_taken
    assert kept.result == "win" and "left the map" not in kept.reason


def test_v9_is_v8_with_a_head_for_the_lyran_against_the_orion():
    """docs/training.md "graduate-captain-v9": v8's eight seat heads, the shared layers and the
    value network tensor for tensor (the seats' race indices one longer), plus a ninth head
    for [lyran, orion]; v8's sidecar (its guard) with the merge's record."""
    require("sb3_contrib")
    from sb3_contrib import MaskablePPO

    v8 = MaskablePPO.load(CHECKPOINTS / "graduate-captain-v8.zip", device="cpu")
    v9 = MaskablePPO.load(CHECKPOINTS / "graduate-captain-v9.zip", device="cpu")
    seats8 = [tuple(s) for s in v8.policy.seat_heads]
    seats9 = [tuple(s) for s in v9.policy.seat_heads]
    assert seats9 == [*seats8, ("lyran", "orion")]
    old, new = v8.policy.state_dict(), v9.policy.state_dict()
    grown = {name for name, tensor in old.items() if new[name].shape != tensor.shape}
    assert grown == {"mlp_extractor.own", "mlp_extractor.foe"}  # the seats' race indices
    for name, tensor in old.items():
        assert new[name][:len(tensor)].equal(tensor) if name in grown else new[name].equal(tensor)
    assert any(name.startswith("action_net.latent.8.") for name in set(new) - set(old))
    sidecar = json.loads((CHECKPOINTS / "graduate-captain-v9.json").read_text())
    assert sidecar["guard"] == "map-edge"
    assert [s["seats"] for s in sidecar["seat_heads_from"]][-1] == [["lyran", "orion"]]


def test_v9_wins_a_lyran_game_against_the_orion_that_v8_loses():
    """grad-lyran-vs-orion seed 2 against random-fighter: v8's Lyran (the seat as v6 flies it)
    loses on damage points at the turn limit; v9's new head wins it on points."""
    require("sb3_contrib")
    before, after = _same_game("grad-lyran-vs-orion", "graduate-captain-v8.zip",
                               "graduate-captain-v9.zip", 2)
    assert (before.result, after.result) == ("loss", "win")
    assert after.damage_dealt > after.damage_taken


def _assert_keeps(before: str, after: str, new: list[tuple[str, str]],
                  value_trained: bool = False, last_record: list | None = None) -> tuple:
    """``after`` is ``before``'s shared layers, shared head and value network and every head
    but those of ``new`` tensor for tensor (each at its new place), then heads for ``new``;
    returns both models and ``after``'s sidecar. Where ``after`` reads a wider observation (a
    view block, ``FixedSpaces.columns_of``), its input layers hold ``before``'s columns at
    their new places and zero for the new inputs (the trained heads' and, with
    ``value_trained``, the value network's excepted). ``last_record``: the seats of the last
    input of the merge (default ``new``)."""
    require("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from sfb_env.env.padding import FixedSpaces

    old_model = MaskablePPO.load(CHECKPOINTS / before, device="cpu")
    new_model = MaskablePPO.load(CHECKPOINTS / after, device="cpu")
    seats_old = [tuple(s) for s in old_model.policy.seat_heads]
    kept = [s for s in seats_old if s not in new]
    assert [tuple(s) for s in new_model.policy.seat_heads] == [*kept, *new]
    old, now = old_model.policy.state_dict(), new_model.policy.state_dict()
    spaces = [FixedSpaces(**json.loads((CHECKPOINTS / c).with_suffix(".json").read_text())[
        "fixed_spaces"]) for c in (before, after)]
    columns = spaces[1].columns_of(spaces[0]) if spaces[0] != spaces[1] else None

    def same(got, want) -> bool:  # ``want`` at its columns, zero for the new inputs
        if columns is None or got.shape == want.shape:
            return got.equal(want)
        rest = np.setdiff1d(np.arange(got.shape[1]), columns)
        return got[:, columns].equal(want) and not got[:, rest].any()

    heads = ("action_net.latent.", "action_net.hidden.", "mlp_extractor.own",
             "mlp_extractor.foe")
    for name, tensor in old.items():
        if value_trained and name.startswith(("mlp_extractor.value_net.", "value_net.")):
            continue
        if name.startswith("action_net.base.") or not name.startswith(heads):
            assert same(now[name], tensor), name  # shared layers, shared head, value network
    for k, seat in enumerate(kept):  # the other heads, each at its new place
        i = seats_old.index(seat)
        for group in ("action_net.latent.", "action_net.hidden."):
            for name, tensor in old.items():
                if name.startswith(f"{group}{i}."):
                    assert same(now[f"{group}{k}.{name[len(group) + len(str(i)) + 1:]}"],
                                tensor)
    sidecar = json.loads((CHECKPOINTS / after).with_suffix(".json").read_text())
    assert sidecar["guard"] == "map-edge"
    assert [s["seats"] for s in sidecar["seat_heads_from"]][-1] == [
        list(s) for s in (new if last_record is None else last_record)]
    return old_model, new_model, sidecar


def test_v10_is_v9_with_wide_heads_for_the_hydran_against_the_kzinti_and_the_orion():
    """docs/training.md "graduate-captain-v10": v9's shared layers and its seven other heads
    tensor for tensor (64 hidden units each), plus the Hydran's Kzinti and Orion heads of run
    16 (256 hidden units, trained on the ``points`` reward); v9's sidecar (its guard) with the
    merge's record."""
    _, v10, sidecar = _assert_keeps("graduate-captain-v9.zip", "graduate-captain-v10.zip",
                                    [("hydran", "kzinti"), ("hydran", "orion")])
    assert v10.policy.hidden == [64] * 7 + [256, 256]
    assert [s["reward"] for s in sidecar["seat_heads_from"]] == ["shaped", "points"]


def test_v11_is_v10_with_run_18s_head_for_the_hydran_against_the_orion():
    """docs/training.md "graduate-captain-v11": v10 tensor for tensor but the Hydran's Orion
    head, which run 18 trained on from v10's (so the same size, other weights)."""
    v10, v11, sidecar = _assert_keeps("graduate-captain-v10.zip", "graduate-captain-v11.zip",
                                      [("hydran", "orion")])
    assert v11.policy.hidden == [64] * 7 + [256, 256]
    was = v10.policy.action_net.hidden[v10.policy.seat_heads.index(["hydran", "orion"])]
    assert not was[0].weight.equal(v11.policy.action_net.hidden[-1][0].weight)
    assert sidecar["seat_heads_from"][-1]["reward"] == "points"


def test_v12_is_v11_widened_into_the_enemy_fire_view_with_three_heads_trained_on_it():
    """docs/training.md "The enemy-fire view": v11's shared layers, shared head and six other
    heads tensor for tensor at their columns of the wider observation (zero for the view, so
    those seats fly as v11 bit for bit), run 23's two Hydran heads and run 25's Federation-ISC
    head, which read the view; v11's guard; the view in the padded spaces."""
    v11, v12, sidecar = _assert_keeps(
        "graduate-captain-v11.zip", "graduate-captain-v12.zip",
        [("hydran", "kzinti"), ("hydran", "orion"), ("federation", "isc")],
        value_trained=True, last_record=[("federation", "isc")])
    assert v12.policy.hidden == [64] * 6 + [256, 256, 64]
    assert sidecar["fixed_spaces"]["rule_features"] == ["esg_fields", "enemy_fire"]
    assert v12.observation_space.shape[0] == v11.observation_space.shape[0] + 6 * 8
    span = FixedSpaces(**sidecar["fixed_spaces"]).placement.span("enemy_fire")
    assert span == slice(408, 456)  # after the padded layout's blocks, before the identity
    for k in (6, 7, 8):  # the trained heads read the view
        assert v12.policy.action_net.hidden[k][0].weight[:, span].abs().sum() > 0


def test_v12_wins_a_hydran_game_against_the_kzinti_that_v11_loses():
    """grad-hydran-vs-kzinti seed 10 against random-fighter: v11 loses it 4 to 45 on damage
    points; v12, whose bench turns the enemy_fire view on (``view_options``), wins it 72 to
    24."""
    require("sb3_contrib")
    before, after = _same_game("grad-hydran-vs-kzinti", "graduate-captain-v11.zip",
                               "graduate-captain-v12.zip", 10)
    assert (before.result, after.result) == ("loss", "win")
    assert after.damage_dealt > 2 * after.damage_taken


def test_v10_wins_a_hydran_game_against_the_orion_that_v9_loses():
    """grad-hydran-vs-orion seed 6 against random-fighter (session 37 read it: v8's Hydran took
    63 points, 36 of them from drones): v9 loses it on damage points at the turn limit; v10's
    new head wins it on points, taking a third of that."""
    require("sb3_contrib")
    before, after = _same_game("grad-hydran-vs-orion", "graduate-captain-v9.zip",
                               "graduate-captain-v10.zip", 6)
    assert (before.result, after.result) == ("loss", "win")
    assert after.damage_dealt > after.damage_taken and after.damage_taken < 30


def test_v11_wins_a_hydran_game_against_the_orion_that_v10_loses():
    """grad-hydran-vs-orion seed 21 against random-fighter: v10 loses it on damage points at
    the turn limit (31 to 37); v11's Orion head wins it, 59 to 19."""
    require("sb3_contrib")
    before, after = _same_game("grad-hydran-vs-orion", "graduate-captain-v10.zip",
                               "graduate-captain-v11.zip", 21)
    assert (before.result, after.result) == ("loss", "win")
    assert after.damage_dealt > 2 * after.damage_taken
