"""The benchmark harness (issue 5): seeded, deterministic, mask-checked, honest statistics."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
import sfb_env
from agents import bench
from agents.base import register_policy
from sfb_env.cli import main
from sfb_env.engine import victory
from sfb_env.engine.types import Status

DUEL = "duel-klingon-vs-federation"


class FireAtImpulseZero:
    """A broken policy: orders its first weapon to fire at slot 1, which the mask never allows
    at impulse 0 (B2.0)."""

    def reset(self, seed=None):
        del seed

    def act(self, observation, action_space):
        action = np.zeros(len(action_space.nvec), dtype=np.int64)
        action[0] = 1
        action[-2] = 1  # straight
        action[-1] = 8
        return action


register_policy("test-fire-at-impulse-zero", FireAtImpulseZero)


def test_short_bench_prints_and_writes_every_output(tmp_path, capsys):
    out = tmp_path / "bench"
    code = main([
        "bench", DUEL, "--blue", "klingon-doctrine", "--red", "random", "--games", "3",
        "--seed", "5", "--workers", "1", "--no-progress", "--out", str(out),
    ])
    assert code == 0
    printed = capsys.readouterr().out
    assert "klingon-doctrine" in printed and "[" in printed and "Ratings" in printed
    for name in ("results.json", "games.csv", "summary.csv", "summary.md", "winrates.png"):
        assert (out / name).stat().st_size > 0
    doc = json.loads((out / "results.json").read_text())
    assert [g["seed"] for g in doc["games"]] == [5, 6, 7]  # game i uses seed S + i
    assert doc["matches"][0]["games"] == 3
    assert {r["player"] for r in doc["ratings"]} == {"klingon-doctrine", "random"}


def test_same_command_same_seeds_prints_identical_results(capsys):
    argv = ["bench", DUEL, "--blue", "random", "--red", "federation-doctrine", "--games", "2",
            "--seed", "11", "--workers", "1", "--no-progress"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == first


def test_parallel_workers_give_the_same_games_as_one_process():
    matches = [bench.Match(DUEL, "klingon-doctrine", "random")]
    specs = bench.plan_games(matches, games=2, seed=3)
    inline = bench.run_games(specs, workers=1, progress=False)
    pooled = bench.run_games(specs, workers=2, progress=False)
    assert inline == pooled


def test_a_side_left_out_is_flown_by_robots_or_random():
    assert bench.default_policy("cth-03", 1) == "robot"  # the convoy has no agents
    assert bench.default_policy("cth-03", 0) == "random"
    assert bench.default_policy(DUEL, 1) == "random"


def test_robot_side_plays_against_an_agent_side():
    games = bench.run_games(bench.plan_games([bench.Match("cth-03", "random", "robot")], 1, 0),
                            progress=False)
    assert games[0].result in ("win", "draw", "loss") and games[0].impulses > 0


def test_bad_policy_name_is_a_clear_error(capsys):
    with pytest.raises(ValueError, match="no-such-captain"):
        bench.check_match(bench.Match(DUEL, "no-such-captain", "random"))
    code = main(["bench", DUEL, "--blue", "no-such-captain", "--games", "1", "--no-progress"])
    assert code == 2
    assert "no-such-captain" in capsys.readouterr().err


def test_robot_cannot_fly_a_side_with_agents_nor_a_policy_a_robot_side():
    with pytest.raises(ValueError, match="robot"):
        bench.check_match(bench.Match(DUEL, "robot", "random"))
    with pytest.raises(ValueError, match="no agents"):
        bench.check_match(bench.Match("cth-03", "random", "random"))


def test_masked_action_raises_naming_policy_and_component():
    spec = bench.GameSpec(0, 0, DUEL, "test-fire-at-impulse-zero", "random", 0)
    with pytest.raises(bench.PolicyActionError) as err:
        bench.play_game(spec)
    text = str(err.value)
    assert "test-fire-at-impulse-zero" in text and "launch[0]=1" in text  # the drone rack
    assert f"{DUEL} seed 0" in text
    assert "B2.0" in text  # the rule the mask applied


def test_ray_is_optional_with_a_clear_error(capsys):
    try:
        import ray  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("Ray is installed")
    code = main(["bench", DUEL, "--games", "1", "--ray", "auto", "--no-progress"])
    assert code == 2 and "needs Ray" in capsys.readouterr().err


def test_python_path_policies_load():
    policy = agents.load_policy("agents.base:RandomMaskedPolicy")
    assert isinstance(policy, agents.RandomMaskedPolicy)
    with pytest.raises(ValueError, match="nowhere"):
        agents.load_policy("nowhere.module:Policy")


def test_wilson_interval_matches_reference_values():
    low, high = bench.wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    low, high = bench.wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    assert bench.wilson(0, 0) == (0.0, 1.0)


def test_ratings_favour_the_winner_and_are_deterministic():
    def game(i, result):
        return bench.GameResult(i, 0, DUEL, "a", "b", i, result, "points", "", 10, 5, 48, 6.0)

    games = [game(i, "win") for i in range(5)] + [game(5, "draw")]
    first, second = bench.rate(games), bench.rate(games)
    assert first == second
    assert [r.player for r in first] == ["a", "b"] and first[0].mu > first[1].mu


def test_round_robin_plays_every_ordered_pair_and_robot_sides_once():
    matches = bench.round_robin(["x", "y", "z"], [DUEL, "cth-03"])
    duel = [m for m in matches if m.scenario == DUEL]
    assert len(duel) == 6 and all(m.blue != m.red for m in duel)
    assert [m for m in matches if m.scenario == "cth-03"] == [
        bench.Match("cth-03", p, "robot") for p in ("x", "y", "z")
    ]


def test_sb3_checkpoint_flies_a_side(tmp_path):
    from conftest import require

    sb3_contrib = require("sb3_contrib")
    from sfb_env.env.single import SingleAgentEnv

    env = SingleAgentEnv(DUEL, agent="klingon-cadet")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, seed=0)
    path = tmp_path / "captain.zip"
    model.save(path)
    games = bench.run_games(
        bench.plan_games([bench.Match(DUEL, str(path), "random")], games=1, seed=0),
        progress=False)
    assert games[0].blue == str(path) and games[0].impulses > 0


@pytest.mark.parametrize("wins", [0, 200])
def test_plot_draws_a_match_won_or_lost_every_time(tmp_path, wins):
    """A 0% or 100% win rate: the Wilson bound equals the rate up to rounding (no negative
    error bar)."""
    from agents.bench_report import plot

    n = 200
    stats = bench.MatchStats(DUEL, "a", "b", n, wins, 0, n - wins, wins / n,
                             bench.wilson(wins, n), 0.0, bench.wilson(0, n),
                             (n - wins) / n, bench.wilson(n - wins, n), 1.0, 1.0, 48.0, 6.0)
    plot([stats, stats], tmp_path / "winrates.png")
    assert (tmp_path / "winrates.png").read_bytes()[:4] == b"\x89PNG"


def test_red_win_rate_reads_reds_own_result_where_outcomes_are_not_zero_sum():
    """Scenario 5 (victory ``encounter``): a side that disengages draws while the other wins a
    tactical victory, so red's wins are not blue's losses."""
    match = bench.Match("cth-05", "random", "federation-doctrine")

    def game(i, result, red_result):
        return bench.GameResult(i, 0, "cth-05", "random", "federation-doctrine", i, result,
                                "disengaged", "", 0, 5, 20, 1.25, red_result)

    games = [game(i, "draw", "win") for i in range(3)] + [game(3, "loss", "win"),
                                                          game(4, "draw", "draw")]
    (stats,) = bench.match_stats([match], games)
    assert (stats.wins, stats.draws, stats.losses) == (0, 4, 1)
    assert stats.red_wins == 4 and stats.red_win_rate == 0.8
    assert stats.red_win_ci == bench.wilson(4, 5)
    legacy = bench.GameResult(0, 0, DUEL, "a", "b", 0, "loss", "points", "", 1, 9, 48, 6.0)
    (old,) = bench.match_stats([bench.Match(DUEL, "a", "b")], [legacy])
    assert old.red_wins == 1  # without a recorded red result, zero-sum is assumed


def test_bench_records_a_tactical_victory_for_the_side_that_stayed():
    battle_env = sfb_env.parallel_env("cth-05")
    spec = bench.GameSpec(0, 0, "cth-05", "random", "random", 0)
    battle_env.reset(seed=0)
    battle = battle_env.battle
    st = battle.state
    st.status[battle.unit_index["destruction"]] = Status.DISENGAGED
    st.outcome, st.end_reason = victory.evaluate(battle, time_up=False)
    result = bench._score(spec, battle_env, "klingon", 1)
    assert (result.result, result.red_result) == ("draw", "win")
