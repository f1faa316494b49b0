"""Bench a captain on every side of several duels: the captain's own record per duel and side.

``python -m training.side_bench CAPTAIN --scenarios A B ... --opponents doctrine random-fighter
--games N --seed S`` plays, for each duel, each side and each opponent, the match that
``sfb bench DUEL --blue CAPTAIN --red OPP`` (or ``--blue OPP --red CAPTAIN``) plays, all in one
process (one start-up instead of one per match), and prints the captain's W-D-L with 95% Wilson
intervals from its own side. ``doctrine`` means the opponent ship's race doctrine captain
(``<race>-doctrine``, CTH-DATA ship race).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass
class SideRecord:
    """The captain's games in one duel, on one side, against one opponent."""

    scenario: str
    side: str  # the captain's side ("blue": the scenario's first side)
    ship: str
    opponent: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def opponent_for(spec: str, scenario: str, captain_side: str) -> str:
    """``doctrine`` becomes the other side's race doctrine; other specs stay as given."""
    if spec != "doctrine":
        return spec
    from agents.ladder import side_races

    races = side_races(scenario)
    other = [races[s] for s in races if s != captain_side]
    (race,) = set().union(*other)
    return f"{race}-doctrine"


def bench_sides(captain: str, scenarios: Sequence[str], opponents: Sequence[str], games: int,
                seed: int = 0, workers: int = 1) -> list[SideRecord]:
    """Play every (duel, side, opponent) match of ``captain``; its records, in that order.
    A scenario given as ``name:blue`` or ``name:red`` plays that side only."""
    from agents import bench
    from agents.ladder import side_races

    matches, records = [], []
    for entry in scenarios:
        scenario, _, only = entry.partition(":")
        sides = list(side_races(scenario))
        if only and only not in ("blue", "red"):
            raise ValueError(f"--scenarios {entry}: the side after ':' is blue or red")
        for opponent in opponents:
            for k, side in enumerate(sides[:2]):
                if only and only != ("blue", "red")[k]:
                    continue
                other = opponent_for(opponent, scenario, side)
                match = bench.Match(scenario, captain if k == 0 else other,
                                    other if k == 0 else captain)
                bench.check_match(match)
                matches.append(match)
                ship = "/".join(sorted(side_races(scenario)[side]))
                records.append(SideRecord(scenario, "blue" if k == 0 else "red", ship, other))
    results = bench.run_games(bench.plan_games(matches, games, seed), workers=workers,
                              progress=False)
    for game in results:
        record = records[game.match]
        outcome = game.result if record.side == "blue" else game.red_outcome
        if outcome == "win":
            record.wins += 1
        elif outcome == "draw":
            record.draws += 1
        else:
            record.losses += 1
    return records


def markdown(records: Sequence[SideRecord]) -> str:
    """The records as a markdown table (95% Wilson intervals, ``agents.bench.wilson``)."""
    from agents.bench import wilson

    lines = ["| duel | captain flies | against | W-D-L | win rate [95% Wilson] |",
             "|---|---|---|---|---|"]
    for r in records:
        low, high = wilson(r.wins, r.games)
        lines.append(f"| {r.scenario} | {r.ship} ({r.side}) | `{r.opponent}` | "
                     f"{r.wins}-{r.draws}-{r.losses} | {r.win_rate:.3f} [{low:.3f}, {high:.3f}] |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.side_bench", description=__doc__)
    parser.add_argument("captain", help="policy spec or checkpoint .zip")
    parser.add_argument("--scenarios", nargs="+", required=True,
                        help="duels; NAME:blue or NAME:red benches one side only")
    parser.add_argument("--opponents", nargs="+", default=["doctrine", "random-fighter"])
    parser.add_argument("--games", type=int, default=20, help="games per match")
    parser.add_argument("--seed", type=int, default=0, help="seed of game 0 (game i: seed + i)")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    records = bench_sides(args.captain, args.scenarios, args.opponents, args.games, args.seed,
                          args.workers)
    print(markdown(records))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
