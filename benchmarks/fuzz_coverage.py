"""The coverage fuzzing reaches, per scenario, as a markdown table (issue 13).

    python benchmarks/fuzz_coverage.py [--steps 240] [--per-game 80] [--first-seed 0]
        [--jobs 2] [--times] [SCENARIO ...]

Fuzzes every listed scenario (default: all of ``sfb_env.list_scenarios()``) with the captains
that fight of ``tests/fuzz_helpers.py`` -- ``random-fighter``, doctrine captains with random
components, and one of each, in turn, one game per seed from ``--first-seed`` -- for
``--steps`` steps, each game cut at ``--per-game`` steps, every order checked by the engine
(``illegal_action="raise"``, ``validate_in_engine``). Prints one markdown row per scenario:
games, steps, the highest turn reached, the weapon kinds fired and the event kinds seen (less
the ubiquitous ones). The defaults are the CI run of ``tests/test_fuzz.py``, which asserts a
floor under these figures; rerun this to re-measure them.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fuzz_helpers import Coverage, fuzz_steps, markdown_table  # noqa: E402

import sfb_env  # noqa: E402


def measure(job: tuple[str, int, int, int]) -> tuple[str, Coverage, float]:
    name, steps, per_game, first_seed = job
    start = time.perf_counter()
    cov = fuzz_steps(name, steps, per_game, first_seed)
    return name, cov, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", help="scenario names (default: all listed)")
    parser.add_argument("--steps", type=int, default=240, help="steps per scenario")
    parser.add_argument("--per-game", type=int, default=80, help="steps per game at most")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first game")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--times", action="store_true", help="print seconds per scenario")
    args = parser.parse_args(argv)
    names = args.scenarios or sorted(sfb_env.list_scenarios())
    jobs = [(n, args.steps, args.per_game, args.first_seed) for n in names]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(measure, jobs))
    print(markdown_table({name: cov for name, cov, _ in results}))
    if args.times:
        for name, _, seconds in results:
            print(f"{name}: {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
