"""``sfb ladder`` (issue 15): a round robin of captains over the cadet duels, both sides, rated
with openskill; the same seed writes the same page on any number of workers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agents import bench, ladder
from sfb_env.cli import main

ROOT = Path(__file__).resolve().parents[1]
CTH03 = str(ROOT / "checkpoints" / "klingon-cth03.zip")
DUEL_CHECKPOINT = str(ROOT / "checkpoints" / "duel-klingon-vs-federation.zip")
KVF = "duel-klingon-vs-federation"
KVZ = "duel-klingon-vs-kzinti"
TINY = ["ladder", "--captains", "klingon-doctrine", "random", "random-fighter", "--duels", KVF,
        "--games", "2", "--seed", "0", "--no-progress"]


def pairs(plan: ladder.Ladder) -> list[tuple[str, str, str]]:
    return [(m.scenario, m.blue, m.red) for m in plan.matches]


# --------------------------------------------------------------------------- who meets whom


def test_round_robin_meets_every_other_entrant_on_every_side_it_flies():
    plan = ladder.plan_ladder(["random", "random-fighter", "klingon-doctrine",
                               "federation-doctrine"], [KVF, KVZ])
    assert pairs(plan) == [
        (KVF, "random", "random-fighter"), (KVF, "random", "federation-doctrine"),
        (KVF, "random-fighter", "random"), (KVF, "random-fighter", "federation-doctrine"),
        (KVF, "klingon-doctrine", "random"), (KVF, "klingon-doctrine", "random-fighter"),
        (KVF, "klingon-doctrine", "federation-doctrine"),
        (KVZ, "random", "random-fighter"), (KVZ, "random-fighter", "random"),
        (KVZ, "klingon-doctrine", "random"), (KVZ, "klingon-doctrine", "random-fighter"),
    ]


def test_a_race_doctrine_captain_flies_only_its_own_race():
    assert ladder.seat_refusal("klingon-doctrine", KVF, "klingon") is None
    why = ladder.seat_refusal("klingon-doctrine", KVF, "federation")
    assert why == "a klingon doctrine captain flies klingon ships, not federation"
    assert ladder.seat_refusal("doctrine", KVF, "federation") is None  # recognises the race
    assert ladder.seat_refusal("random-fighter", KVZ, "kzinti") is None


def test_a_checkpoint_flies_the_duel_it_was_trained_for_and_no_other():
    from conftest import require

    require("sb3_contrib")
    one, refusals = ladder.entrant(DUEL_CHECKPOINT, [KVF, KVZ])
    assert one.seats == ((KVF, "klingon"), (KVF, "federation"))  # its sidecar's two agents
    assert len(refusals) == 2 and f"not '{KVZ}'" in refusals[0]


def test_a_checkpoint_of_another_scenario_is_left_out_saying_why():
    from conftest import require

    require("sb3_contrib")
    plan = ladder.plan_ladder(["random", "random-fighter", CTH03], [KVF])
    assert [e.captain for e in plan.entrants] == ["random", "random-fighter"]
    [(captain, why)] = plan.left_out
    assert captain == CTH03 and "trained for scenario 'cth-03'" in why
    with pytest.raises(ValueError, match="flies no ship of duel-klingon-vs-federation"):
        ladder.plan_ladder(["random", "random-fighter", CTH03], [KVF], named=[CTH03])


def test_the_default_roster_enters_the_race_captains_of_the_duels():
    roster = ladder.default_roster(ladder.DUELS, checkpoints=None)
    assert roster == ["random", "random-fighter", "klingon-doctrine", "federation-doctrine",
                      "kzinti-doctrine", "orion-doctrine"]


# --------------------------------------------------------------------------- ratings


def _game(index: int, blue: str, red: str, result: str) -> bench.GameResult:
    flip = {"win": "loss", "loss": "win", "draw": "draw"}
    return bench.GameResult(index, 0, KVF, blue, red, index, result, "points", "", 0, 0, 48,
                            6.0, flip[result])


def test_a_captain_that_wins_every_game_rates_above_the_one_that_loses_them():
    plan = ladder.plan_ladder(["random", "random-fighter"], [KVF])
    # "random" wins every game, from blue and from red
    games = [_game(i, "random", "random-fighter", "win") for i in range(3)]
    games += [_game(i, "random-fighter", "random", "loss") for i in range(3, 6)]
    winner, loser = ladder.standings(plan, games)
    assert (winner.captain, winner.wins, winner.losses) == ("random", 6, 0)
    assert (loser.captain, loser.wins, loser.losses) == ("random-fighter", 0, 6)
    assert winner.mu > 25 > loser.mu and winner.low > loser.mu
    assert winner.sigma < 25 / 3  # six games narrowed the interval


# --------------------------------------------------------------------------- a tiny ladder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """The tiny ladder written by one worker (folder ``one/``)."""
    folder = tmp_path_factory.mktemp("ladder") / "one"
    assert main([*TINY, "--workers", "1", "--out", str(folder / "ladder.md")]) == 0
    return folder


def test_the_tiny_ladder_plays_every_pairing_and_rates_the_unbeaten_captain_first(tiny):
    page = (tiny / "ladder.md").read_text()
    assert (tiny / "ladder.png").stat().st_size > 0
    rows = [line for line in page.splitlines() if line.startswith(f"| {KVF} |")]
    assert [r.split(" | ")[1:3] for r in rows] == [  # entrant order: --captains
        ["klingon-doctrine", "random"], ["klingon-doctrine", "random-fighter"],
        ["random", "random-fighter"], ["random-fighter", "random"]]
    assert all(" | 2 | " in r for r in rows)  # two games each
    # the Klingon doctrine captain beats both random captains every time (docs/bench.md)
    assert "| 1 | klingon-doctrine | 4 | 4-0-0 |" in page


def test_the_same_seed_writes_the_same_page_on_two_workers(tiny):
    assert main([*TINY, "--workers", "2", "--out", str(tiny.parent / "two" / "ladder.md")]) == 0
    first = (tiny / "ladder.md").read_text().replace("/one/", "/two/")
    assert (tiny.parent / "two" / "ladder.md").read_text() == first


def test_round_i_plays_every_pairing_once_with_seed_plus_i():
    plan = ladder.plan_ladder(["klingon-doctrine", "random", "random-fighter"], [KVF])
    games, _ = ladder.run_ladder(plan, games=2, seed=100)
    assert [g.index for g in games] == list(range(8))
    assert [(g.seed, g.match) for g in games] == [(100, m) for m in range(4)] + [
        (101, m) for m in range(4)]


# --------------------------------------------------------------------------- CLI errors


@pytest.mark.parametrize(("args", "needle"), [
    (["--captains", "no-such-captain", "random"], "unknown policy 'no-such-captain'"),
    (["--duels", "duel-no-such"], "unknown duel 'duel-no-such'"),
    (["--duels", "cth-03"], "'cth-03' is not a duel"),
    (["--captains", "klingon-doctrine", "random", "--duels", "duel-federation-vs-orion"],
     "captain 'klingon-doctrine' flies no ship of duel-federation-vs-orion"),
    (["--captains", "random"], "needs at least two captains"),
    (["--captains", "random", "random"], "captain 'random' is named twice"),
    (["--games", "0"], "--games must be at least 1"),
    (["--out", "ladder.txt"], "expected a markdown file"),
])
def test_bad_arguments_are_one_line_naming_the_culprit_and_exit_2(args, needle, capsys):
    assert main(["ladder", *args, "--no-progress"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sfb ladder: error: "), captured.err
    assert needle in lines[0]
    assert captured.out == ""  # no game was played


def test_the_sfb_command_refuses_an_unknown_duel_with_exit_2():
    proc = subprocess.run([sys.executable, "-m", "sfb_env.cli", "ladder", "--duels", "duel-nope"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().startswith("sfb ladder: error: unknown duel 'duel-nope'; known")
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""
