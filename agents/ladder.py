"""The ladder: a round robin of captains over the cadet duels, rated with openskill.

An *entrant* is a captain spec (``random``, ``klingon-doctrine``, ``checkpoints/x.zip``, ...)
with the *seats* it can fly: a (duel, side) pair. Every ordered pair of distinct entrants that
can fly a duel's two sides meets there (blue = the duel's first side), so every pairing is
played on both sides where both captains fly both ships. The games are ``agents.bench``
games, played in rounds: round i plays every pairing once with seed S + i. Results come back
sorted by game index (round, then pairing) and the ratings are updated in that order, so a
seed gives the same ladder on any number of workers.

Who flies what:

- ``random``, ``random-fighter``, ``doctrine`` (race recognised from the weapons) and any
  ``module:object`` policy: every seat;
- ``<race>-doctrine``: the ships of its race only (its range bands, fire ranges and shield
  profile are that race's ship's, CTH-DATA §9.1);
- an SB3 checkpoint: the seats its sidecar names (``check_checkpoint``: its scenario, and the
  side's agents among the sidecar's ``agents``).

Usage::

    ladder = plan_ladder(default_roster(DUELS), DUELS)
    games, table = run_ladder(ladder, games=50, seed=0, workers=2)
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agents import bench
from agents.base import load_policy
from agents.doctrine import DOCTRINES
from sfb_env.data.ships import load_ship
from sfb_env.engine import list_scenarios, load_scenario
from sfb_env.engine.scenario import SCENARIO_DIR

#: The six 8-impulse cadet duels (docs/bench.md): Klingon, Federation, Kzinti and Orion cadets.
DUELS = (
    "duel-klingon-vs-federation", "duel-klingon-vs-kzinti", "duel-klingon-vs-orion",
    "duel-federation-vs-kzinti", "duel-federation-vs-orion", "duel-kzinti-vs-orion",
)
BASELINES = ("random", "random-fighter")
CHECKPOINTS = Path("checkpoints")

Seat = tuple[str, str]  # (duel, side)


@dataclass(frozen=True)
class Entrant:
    """A captain and the seats it flies, in duel order."""

    captain: str
    seats: tuple[Seat, ...]


@dataclass(frozen=True)
class Ladder:
    """The entrants, the captains left out (with why) and the pairings to play."""

    duels: tuple[str, ...]
    entrants: tuple[Entrant, ...]
    left_out: tuple[tuple[str, str], ...]  # (captain, reason)
    matches: tuple[bench.Match, ...]


@dataclass(frozen=True)
class Standing:
    """One captain's rating and record (from its own side, over every game it played)."""

    captain: str
    mu: float
    sigma: float
    ordinal: float  # mu - 3 sigma (openskill)
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def low(self) -> float:
        """mu - 2 sigma."""
        return self.mu - 2 * self.sigma

    @property
    def high(self) -> float:
        """mu + 2 sigma."""
        return self.mu + 2 * self.sigma


# ---------------------------------------------------------------------- who flies what


def check_duel(duel: str) -> None:
    """Refuse a name that is not a shipped scenario with two sides of agents, naming it."""
    if not (SCENARIO_DIR / f"{duel}.yaml").is_file():
        duels = [name for name in list_scenarios() if name.startswith("duel-")]
        raise ValueError(f"unknown duel {duel!r}; known duels: {', '.join(duels)}")
    sides = bench.sides_with_agents(duel)
    if len(sides) != 2 or not all(sides.values()):
        raise ValueError(f"{duel!r} is not a duel: the ladder needs two sides of agent ships, "
                         f"it has {sides}")


def side_races(duel: str) -> dict[str, set[str]]:
    """Each side of ``duel`` with the races of its agent ships (CTH-DATA ship files)."""
    spec = load_scenario(duel)
    races: dict[str, set[str]] = {side: set() for side in spec.sides}
    for unit in spec.units:
        if unit.controller == "agent":
            races[unit.side].add(load_ship(unit.unit_class).race)
    return races


def seat_refusal(captain: str, duel: str, side: str) -> str | None:
    """Why ``captain`` cannot fly ``side`` of ``duel``, or None if it can."""
    race = captain.removesuffix("-doctrine")
    if captain.endswith("-doctrine") and race in DOCTRINES:
        ships = side_races(duel)[side]
        if ships != {race}:
            return f"a {race} doctrine captain flies {race} ships, not {'/'.join(sorted(ships))}"
        return None
    if captain.endswith(".zip"):
        from agents.sb3_policy import check_checkpoint, read_sidecar

        if importlib.util.find_spec("sb3_contrib") is None:
            return "checkpoints need the train extra (sb3-contrib): pip install -e '.[train]'"

        try:
            check_checkpoint(captain, load_scenario(duel).name)
        except ValueError as exc:
            return str(exc)
        trained = (read_sidecar(captain) or {}).get("agents")
        agents = bench.sides_with_agents(duel)[side]
        if trained is not None and not set(agents) <= set(trained):
            return f"checkpoint {captain!r} was trained for agents {trained}, not {agents}"
    return None


def entrant(captain: str, duels: Sequence[str]) -> tuple[Entrant, list[str]]:
    """``captain`` with the seats it flies among ``duels`` and the refusals of the others;
    an unknown captain or unreadable checkpoint raises ``ValueError`` naming it."""
    if captain == bench.ROBOT:
        raise ValueError("captain 'robot' flies no duel ship: the duels' ships are agents")
    if captain.endswith(".zip"):
        if not Path(captain).exists():
            raise ValueError(f"SB3 checkpoint {captain!r} does not exist")
    else:
        load_policy(captain)  # an unknown name or module path fails here, naming it
    seats, refusals = [], []
    for duel in duels:
        for side in bench.sides_with_agents(duel):
            why = seat_refusal(captain, duel, side)
            if why is None:
                seats.append((duel, side))
            else:
                refusals.append(why)
    return Entrant(captain, tuple(seats)), refusals


def default_roster(duels: Sequence[str], checkpoints: Path | None = CHECKPOINTS) -> list[str]:
    """random, random-fighter, the doctrine captain of every race in ``duels`` (duel order)
    and every checkpoint under ``checkpoints`` (sorted; ``plan_ladder`` leaves out those that
    fly none of the duels)."""
    races: list[str] = []
    for duel in duels:
        for ships in side_races(duel).values():
            races += [r for r in sorted(ships) if r in DOCTRINES and r not in races]
    found = sorted(str(p) for p in checkpoints.glob("*.zip")) if checkpoints else []
    return [*BASELINES, *(f"{race}-doctrine" for race in races), *found]


def plan_ladder(captains: Sequence[str], duels: Sequence[str],
                named: Iterable[str] = ()) -> Ladder:
    """The entrants among ``captains`` and every pairing of them on ``duels``.

    A captain that flies none of the duels is left out with its first refusal, unless it is in
    ``named`` (the user asked for it): then ``ValueError``. Fewer than two entrants is an error.
    """
    named = set(named)
    if len(set(captains)) != len(captains):
        twice = sorted({c for c in captains if list(captains).count(c) > 1})
        raise ValueError(f"captain {twice[0]!r} is named twice")
    for duel in duels:
        check_duel(duel)
    entrants, left_out = [], []
    for captain in captains:
        one, refusals = entrant(captain, duels)
        if one.seats:
            entrants.append(one)
        elif captain in named:
            raise ValueError(f"captain {captain!r} flies no ship of {', '.join(duels)}: "
                             f"{refusals[0]}")
        else:
            left_out.append((captain, refusals[0] if len(refusals) == 1
                             else f"{refusals[0]} (and likewise every other seat)"))
    if len(entrants) < 2:
        raise ValueError(f"the ladder needs at least two captains that fly {', '.join(duels)}; "
                         f"got {[e.captain for e in entrants]}")
    return Ladder(tuple(duels), tuple(entrants), tuple(left_out), tuple(pairings(entrants, duels)))


def pairings(entrants: Sequence[Entrant], duels: Sequence[str]) -> list[bench.Match]:
    """Every ordered pair of distinct entrants flying the blue and red side of each duel
    (duel order, then blue and red in entrant order)."""
    matches = []
    for duel in duels:
        blue_side, red_side = bench.sides_with_agents(duel)
        blues = [e.captain for e in entrants if (duel, blue_side) in e.seats]
        reds = [e.captain for e in entrants if (duel, red_side) in e.seats]
        matches += [bench.Match(duel, b, r) for b in blues for r in reds if b != r]
    return matches


# ---------------------------------------------------------------------- results


def standings(ladder: Ladder, games: Sequence[bench.GameResult]) -> list[Standing]:
    """openskill ratings (``bench.rate``: Plackett-Luce, games in index order) with each
    captain's record, best ordinal first."""
    record = {e.captain: [0, 0, 0] for e in ladder.entrants}
    column = {"win": 0, "draw": 1, "loss": 2}
    for g in games:
        record[g.blue][column[g.result]] += 1
        record[g.red][column[g.red_outcome]] += 1
    out = []
    for r in bench.rate(games):
        w, d, lost = record[r.player]
        out.append(Standing(r.player, r.mu, r.sigma, r.ordinal, r.games, w, d, lost))
    return out


def plan_rounds(matches: Sequence[bench.Match], games: int, seed: int) -> list[bench.GameSpec]:
    """``games`` rounds; round i plays every pairing once with seed ``seed + i``. The game
    index runs round by round, so the ratings (updated in index order) take every pairing's
    games evenly along the way, not one duel's last."""
    out: list[bench.GameSpec] = []
    for i in range(games):
        for m, match in enumerate(matches):
            out.append(bench.GameSpec(len(out), m, match.scenario, match.blue, match.red, seed + i))
    return out


def run_ladder(ladder: Ladder, games: int, seed: int, workers: int = 1,
               progress: bool = False) -> tuple[list[bench.GameResult], list[Standing]]:
    """Play ``games`` rounds of every pairing (round i: seed + i) and rate them."""
    specs = plan_rounds(ladder.matches, games, seed)
    results = bench.run_games(specs, workers=workers, progress=progress)
    return results, standings(ladder, results)
