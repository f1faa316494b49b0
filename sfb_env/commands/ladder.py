"""``sfb ladder``: a round robin of captains over the cadet duels, rated (``agents.ladder``).

    sfb ladder --games N --seed S [--captains NAME...] [--duels NAME...] --out docs/ladder.md

Captains default to random, random-fighter, the doctrine captain of each race in the duels and
every checkpoint under ``--checkpoints`` that flies one of them; duels default to the six
8-impulse cadet duels. Every ordered pair of distinct captains that fly a duel's two sides
plays N games there (game i: seed S + i). Prints the ratings; ``--out`` writes the markdown
page and a PNG plot beside it. Arguments are checked before any game: a bad one is one line
on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--captains", nargs="+", metavar="NAME",
                        help="captains (policy names, module:object or *.zip; default: random, "
                             "random-fighter, the duels' race doctrine captains, --checkpoints)")
    parser.add_argument("--duels", nargs="+", metavar="NAME",
                        help="duel scenarios (default: the six 8-impulse cadet duels)")
    parser.add_argument("--checkpoints", default="checkpoints", metavar="DIR",
                        help="folder of checkpoints entered by default (default: checkpoints)")
    parser.add_argument("--games", type=int, default=20, help="games per pairing (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of game 0 (game i: seed + i)")
    parser.add_argument("--out", metavar="FILE.md", help="write the page here (plot: FILE.png)")
    parser.add_argument("--workers", type=int, default=None,
                        help="parallel processes (default min(2, CPUs)); results do not depend "
                             "on it")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    from sfb_env.commands.play import add_backend_argument

    add_backend_argument(parser)


def run(args: argparse.Namespace) -> int:
    from agents import bench, ladder
    from agents.ladder_report import ratings_table, write_page
    from sfb_env.backends import default_backend
    from sfb_env.commands.bench import require_bench_extra
    from sfb_env.commands.play import apply_backend, check_writable, cold_build_notice

    apply_backend(args)
    try:
        require_bench_extra()
        if args.games < 1:
            raise ValueError(f"--games must be at least 1, got {args.games}")
        if args.seed < 0:
            raise ValueError(f"--seed must be >= 0, got {args.seed}")
        if args.workers is not None and args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        if args.out:
            if Path(args.out).suffix != ".md":
                raise ValueError(f"--out {args.out}: expected a markdown file (.md)")
            check_writable(args.out, "--out")
        duels = args.duels or list(ladder.DUELS)
        for duel in duels:
            ladder.check_duel(duel)
        captains = args.captains or ladder.default_roster(duels, Path(args.checkpoints))
        plan = ladder.plan_ladder(captains, duels, named=args.captains or ())
    except (ValueError, RuntimeError) as exc:
        print(f"sfb ladder: error: {exc}", file=sys.stderr)
        return 2
    cold_build_notice("sfb ladder")
    workers = args.workers if args.workers is not None else bench.default_workers()
    games, table = ladder.run_ladder(plan, args.games, args.seed, workers,
                                     progress=not args.no_progress)
    print(f"Ratings (openskill Plackett-Luce; {len(plan.matches)} pairings x {args.games} "
          f"games)\n\n{ratings_table(table)}")
    if args.out:
        for path in write_page(args.out, plan, games, table, command(args), args.games,
                               args.seed, default_backend()):
            print(f"wrote {path}")
    return 0


def command(args: argparse.Namespace) -> str:
    """The command line that reproduces this ladder (workers and backend do not change it)."""
    words = ["sfb", "ladder", "--games", str(args.games), "--seed", str(args.seed)]
    if args.captains:
        words += ["--captains", *args.captains]
    if args.duels:
        words += ["--duels", *args.duels]
    if not args.captains and args.checkpoints != "checkpoints":
        words += ["--checkpoints", args.checkpoints]
    if args.out:
        words += ["--out", args.out]
    return shlex.join(words)
