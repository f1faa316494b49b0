"""The focused league (``league.focus``, issue 21): each seat (scenario and the side the learner
flies) plays the stage's evaluation opponent as often as its evaluations say it loses to it,
its win rates smoothed over evaluations and kept in the checkpoint's league state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import require

from training.config import LeagueConfig
from training.league import FOCUS_SMOOTHING, League

DUELS = ["duel-klingon-vs-federation", "duel-kzinti-vs-orion"]
SEAT_BLUE = (DUELS[0], "blue")
SEAT_RED = (DUELS[0], "red")


def focused(tmp_path: Path, focus: float = 1.0, power: float = 1.0, seed: int = 0,
            seat_slots: float = 0.0) -> League:
    return League(LeagueConfig(pool=("random",), focus=focus, focus_power=power,
                               seat_slots=seat_slots), tmp_path / "league", seed=seed)


def draws(league: League, seat: tuple[str, str], n: int = 2000) -> float:
    """The share of ``n`` draws of ``seat`` that play the focus opponent."""
    return sum(league.sample_for(seat, "doctrine") == "doctrine" for _ in range(n)) / n


def test_focus_probability_is_focus_times_the_seats_loss_rate_to_the_power(tmp_path):
    league = focused(tmp_path, focus=0.75, power=2.0)
    league.observe_seats({SEAT_BLUE: 0.2, SEAT_RED: 1.0})
    assert league.focus_probability(SEAT_BLUE) == pytest.approx(0.75 * 0.8 ** 2)
    assert league.focus_probability(SEAT_RED) == 0.0
    assert league.focus_probability((DUELS[1], "blue")) == 0.0  # not evaluated yet


def test_a_losing_seat_plays_the_focus_opponent_and_a_winning_seat_the_pool(tmp_path):
    league = focused(tmp_path, focus=0.8)
    league.observe_seats({SEAT_BLUE: 0.0, SEAT_RED: 1.0})
    assert draws(league, SEAT_BLUE) == pytest.approx(0.8, abs=0.04)
    assert draws(league, SEAT_RED) == 0.0  # only the pool ("random")
    assert draws(league, (DUELS[1], "red")) == 0.0


def test_without_focus_the_seat_draw_is_the_pool_draw_of_the_same_generator(tmp_path):
    plain = League(LeagueConfig(pool=("random", "doctrine")), tmp_path / "a", seed=3)
    seated = League(LeagueConfig(pool=("random", "doctrine")), tmp_path / "b", seed=3)
    seated.observe_seats({SEAT_BLUE: 0.0})
    assert [plain.sample() for _ in range(50)] == [seated.sample_for(SEAT_BLUE, "doctrine")
                                                   for _ in range(50)]


def test_seat_rates_are_smoothed_over_evaluations(tmp_path):
    league = focused(tmp_path)
    league.observe_seats({SEAT_BLUE: 0.5})
    assert league.seat_rates[SEAT_BLUE] == 0.5  # the first evaluation as it is
    league.observe_seats({SEAT_BLUE: 1.0, SEAT_RED: 0.25})
    assert league.seat_rates[SEAT_BLUE] == pytest.approx(
        FOCUS_SMOOTHING * 1.0 + (1 - FOCUS_SMOOTHING) * 0.5)
    assert league.seat_rates[SEAT_RED] == 0.25


def test_the_factory_of_a_scenario_tells_the_learners_seat_from_the_agent_it_flies(tmp_path):
    league = focused(tmp_path)
    league.observe_seats({SEAT_BLUE: 0.0, SEAT_RED: 1.0})
    asked = []
    league._policy = lambda spec: asked.append(spec) or spec  # record, load nothing
    # the Klingon is the first side (blue)
    assert league.seat_of(DUELS[0], "klingon-cadet") == SEAT_BLUE
    assert league.seat_of(DUELS[0], "fed-cadet") == SEAT_RED
    assert league.other_seat(SEAT_BLUE) == SEAT_RED and league.other_seat(SEAT_RED) == SEAT_BLUE
    factory = league.opponent_for(DUELS[0], "doctrine")
    # asked to fly the Federation (red), the learner is blue: its seat always plays the focus
    assert {factory("fed-cadet") for _ in range(20)} == {"doctrine"}
    # asked to fly the Klingon (blue), the learner is red: a seat that wins plays the pool
    assert {factory("klingon-cadet") for _ in range(20)} == {"random"}


def test_seat_rates_survive_the_checkpoint_state(tmp_path):
    league = focused(tmp_path)
    league.observe_seats({SEAT_BLUE: 0.125, SEAT_RED: 0.75})
    state = json.loads(json.dumps(league.state()))  # as the sidecar stores it
    again = focused(tmp_path)
    again.load_state(state)
    assert again.seat_rates == league.seat_rates
    assert again.focus_probability(SEAT_BLUE) == league.focus_probability(SEAT_BLUE)


def test_seat_slots_split_a_duels_battles_by_its_seats_loss_rates(tmp_path):
    agents = ["klingon-cadet", "fed-cadet"]
    league = focused(tmp_path, power=2.0, seat_slots=0.5)
    assert league.seat_battles(DUELS[0], agents, 24) == [12, 12]  # not yet evaluated
    league.observe_seats({SEAT_BLUE: 0.5, SEAT_RED: 0.0})
    # losses 0.25 and 1: shares 0.25 + 0.5 * 0.2 = 0.35 and 0.25 + 0.5 * 0.8 = 0.65
    assert league.seat_battles(DUELS[0], agents, 24) == [8, 16]  # 8.4 and 15.6
    assert league.seat_battles(DUELS[0], agents[::-1], 24) == [16, 8]  # by seat, not order
    league.observe_seats({SEAT_BLUE: 1.0, SEAT_RED: 1.0})  # both halve their losses: 1/16, 1/4
    assert league.seat_battles(DUELS[0], agents, 24) == [8, 16]
    league.seat_rates = {SEAT_BLUE: 1.0, SEAT_RED: 1.0}  # no seat loses: even
    assert league.seat_battles(DUELS[0], agents, 25) == [13, 12]  # ties to the first


def test_every_ship_keeps_a_battle_under_seat_slots(tmp_path):
    agents = ["klingon-cadet", "fed-cadet"]
    league = focused(tmp_path, seat_slots=1.0)
    league.observe_seats({SEAT_BLUE: 1.0, SEAT_RED: 0.25})
    assert league.seat_battles(DUELS[0], agents, 24) == [1, 23]
    assert league.seat_battles(DUELS[0], agents, 2) == [1, 1]
    with pytest.raises(ValueError, match="league.seat_slots"):
        league.seat_battles(DUELS[0], agents, 1)


@pytest.mark.parametrize(("league", "stage", "field", "problem"), [
    ("{focus: 0.5}", "", "stages[0].eval_opponent", "evaluation opponent"),
    ("{seat_slots: 0.5}", ", eval_opponent: doctrine", "league.seat_slots", "focus > 0"),
    ("{focus: 0.5, seat_slots: 0.5}", ", eval_opponent: doctrine, agent: klingon-cadet",
     "stages[0].agent", "agent: alternate"),
    ("{focus: 0.5, seat_slots: 2}", ", eval_opponent: doctrine", "league.seat_slots",
     "<= 1.0"),
    ("{focus: 0.5}", ", eval_opponent: league", "stages[0].eval_opponent",
     "evaluation opponent"),
    ("{focus: 1.5}", ", eval_opponent: doctrine", "league.focus", "<= 1.0"),
    ("{focus_power: -1}", ", eval_opponent: doctrine", "league.focus_power", ">= 0.0"),
])
def test_focus_config_errors_name_the_field(tmp_path, league, stage, field, problem):
    from training.config import ConfigError, load_config

    path = tmp_path / "run.yaml"
    agent = "" if "agent:" in stage else "agent: alternate, "
    path.write_text(f"league: {league}\nstages:\n  - {{scenario: {DUELS[0]}, timesteps: 10, "
                    f"{agent}opponent: league{stage}}}\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert err.value.field == field
    assert problem in str(err.value)


def tiny_focused_run(tmp_path: Path, league: str) -> dict:
    """Train 192 timesteps over ``DUELS`` (8 slots, evaluations every 64 timesteps against
    ``random-fighter``) with the league's ``league`` settings; the final sidecar."""
    require("sb3_contrib")
    from sfb_env.cli import main

    config = tmp_path / "run.yaml"
    config.write_text(
        "env: {backend: compiled}\n"
        "ppo: {n_envs: 8, n_steps: 8, batch_size: 32, n_epochs: 1, net_arch: [32]}\n"
        "evaluation: {every: 64, games: 4}\ncheckpoints: {every: 0}\n"
        f"league: {{pool: [random], {league}}}\n"
        f"stages:\n  - {{scenarios: {DUELS}, timesteps: 192, agent: alternate, "
        "opponent: league, eval_opponent: random-fighter}\n")
    out = tmp_path / "run"
    assert main(["train", str(config), "--output", str(out), "--no-progress"]) == 0
    return json.loads((out / "final.json").read_text())


@pytest.mark.compiled_late
def test_a_focused_league_evaluates_its_seats_first_and_draws_by_them(tmp_path, monkeypatch):
    """A tiny run over two duels: the stage opens with an evaluation of every seat, later
    evaluations update the rates, and each battle's opponent is drawn for its seat."""
    asked: list[tuple[tuple[str, str], str]] = []
    sample_for = League.sample_for

    def recorded(self, seat, focus_opponent):
        spec = sample_for(self, seat, focus_opponent)
        asked.append((seat, spec))
        return spec

    monkeypatch.setattr(League, "sample_for", recorded)
    state = tiny_focused_run(tmp_path, "focus: 1.0")["league"]
    seats = {(scenario, side) for scenario, side, _ in state["seat_rates"]}
    assert seats == {(d, s) for d in DUELS for s in ("blue", "red")}
    assert all(0.0 <= rate <= 1.0 for *_, rate in state["seat_rates"])
    assert {seat for seat, _ in asked} == seats  # every battle drawn for its seat
    assert {spec for _, spec in asked} <= {"random", "random-fighter"}


@pytest.mark.compiled_late
def test_seat_slots_build_the_env_anew_after_evaluations(tmp_path, monkeypatch):
    """A tiny run with seat slots: the stage's env starts even and is built anew, split by the
    seats' rates, between rollouts after evaluations; the run goes on through the new env."""
    from training.curriculum import Curriculum

    builds: list[tuple[int, dict]] = []
    make_env = Curriculum.make_env

    def recorded(self, seed):
        venv = make_env(self, seed)
        builds.append((self.state.stage_timesteps, {
            scenario: self.seat_battles(scenario, 4) for scenario in self.stage.scenarios}))
        return venv

    monkeypatch.setattr(Curriculum, "make_env", recorded)
    state = tiny_focused_run(tmp_path, "focus: 1.0, seat_slots: 1.0")
    # the stage's env (even: no seat evaluated yet), then one after each rollout that follows
    # an evaluation (at 0 and 64, 128), none after the last (the stage is over)
    assert [t for t, _ in builds] == [0, 64, 128]
    agents = {DUELS[0]: ["klingon-cadet", "fed-cadet"],
              DUELS[1]: ["kzinti-cadet", "orion-cadet"]}
    assert builds[0][1] == {d: {a: 2 for a in agents[d]} for d in DUELS}
    for _, split in builds:
        for duel, battles in split.items():
            assert list(battles) == agents[duel]
            assert sum(battles.values()) == 4 and min(battles.values()) >= 1
    assert state["timesteps"] >= 192
