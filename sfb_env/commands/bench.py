"""``sfb bench``: benchmark policies over scenarios and seeds (harness in ``agents.bench``).

    sfb bench SCENARIO --blue POLICY [--red POLICY] --games N --seed S --out DIR
    sfb bench --round-robin POLICY... --scenarios NAME... --games N --seed S --out DIR

A policy is a registry name (``random``, ``robot``, ``klingon-doctrine``, ...), a Python path
``module:object`` or an SB3 checkpoint ``*.zip``. A side left out is flown by the scenario's
robots if it has no agents, else by ``random``. Game i uses seed S + i. Results (sorted by game
index, no timing) are printed and written to DIR as JSON, CSV, markdown and a PNG plot.
"""

from __future__ import annotations

import argparse
import importlib
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", nargs="?", help="scenario name or YAML path (one match)")
    parser.add_argument("--blue", help="policy for the scenario's first side")
    parser.add_argument("--red", help="policy for the other side(s)")
    parser.add_argument("--round-robin", nargs="+", metavar="POLICY",
                        help="every ordered pair of these policies on every --scenarios entry")
    parser.add_argument("--scenarios", nargs="+", metavar="NAME", help="scenarios (round robin)")
    parser.add_argument("--games", type=int, default=20, help="games per match (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of game 0 (game i: seed + i)")
    parser.add_argument("--out", help="directory for results.json, CSVs, summary.md, plot")
    parser.add_argument("--workers", type=int, default=None,
                        help="parallel processes (default min(2, CPUs))")
    parser.add_argument("--ray", metavar="ADDRESS", help="run games as Ray tasks at ADDRESS")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    from sfb_env.commands.play import add_backend_argument

    add_backend_argument(parser)


BENCH_EXTRA = ("openskill", "matplotlib", "tqdm")  # ratings, the plot, the progress bar


def require_bench_extra() -> None:
    """Import what the bench needs now, not after the games (``RuntimeError`` naming it)."""
    for module in BENCH_EXTRA:
        try:
            importlib.import_module(module)
        except ImportError:
            raise RuntimeError(f"the bench extra is missing ({module} cannot be imported): "
                               "pip install -e '.[bench]'") from None


def run(args: argparse.Namespace) -> int:
    from agents import bench
    from agents.bench_report import report, write_outputs
    from sfb_env.commands.play import apply_backend, check_writable, cold_build_notice

    apply_backend(args)
    try:
        require_bench_extra()
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        if args.workers is not None and args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        if args.out:
            check_writable(args.out, "--out", folder=True)
        matches = _matches(args, bench)
        for match in matches:
            bench.check_match(match)
        if args.ray:
            bench.require_ray()
    except (ValueError, RuntimeError) as exc:
        print(f"sfb bench: error: {exc}", file=sys.stderr)
        return 2
    cold_build_notice("sfb bench")
    workers = args.workers if args.workers is not None else bench.default_workers()
    specs = bench.plan_games(matches, args.games, args.seed)
    games = bench.run_games(specs, workers=workers, ray_address=args.ray,
                            progress=not args.no_progress)
    stats = bench.match_stats(matches, games)
    ratings = bench.rate(games)
    print(report(stats, ratings), end="")
    if args.out:
        config = {"matches": [bench.as_dict(m) for m in matches], "games": args.games,
                  "seed": args.seed}
        for path in write_outputs(args.out, config, games, stats, ratings):
            print(f"wrote {path}")
    return 0


def _matches(args: argparse.Namespace, bench) -> list:
    if args.round_robin:
        if args.scenario or args.blue or args.red:
            raise ValueError("--round-robin takes its scenarios from --scenarios, not SCENARIO, "
                             "--blue or --red")
        if not args.scenarios:
            raise ValueError("--round-robin needs --scenarios NAME...")
        if len(set(args.round_robin)) < 2:
            raise ValueError("--round-robin needs at least two distinct policies")
        return bench.round_robin(args.round_robin, args.scenarios)
    if not args.scenario:
        raise ValueError("give a SCENARIO (with --blue/--red) or --round-robin ... --scenarios")
    _ = bench.sides_with_agents(args.scenario)  # an unknown scenario fails here, naming it
    blue = args.blue or bench.default_policy(args.scenario, 0)
    red = args.red or bench.default_policy(args.scenario, 1)
    return [bench.Match(args.scenario, blue, red)]
