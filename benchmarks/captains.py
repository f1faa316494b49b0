"""Decisions per second of the scripted captains, the doctrine's helm compiled and in numpy.

    taskset -c 0 python benchmarks/captains.py [--scenarios grad-lyran-vs-hydran ...]
                                               [--steps 600] [--seed 0] [--quick]

For each scenario the script plays the same battles (seeds ``seed``, ``seed + 1``, ...) three
times on the compiled core, the two ships flown by:

* ``doctrine``, its helm in numpy (``agents.helm.reference_plan``, the specification);
* ``doctrine``, its helm compiled (``agents.helm.plan``, one numba call a decision: the same
  plans, so the same battles);
* ``random-fighter``;

and times the captains' ``act`` calls alone (the env's steps are not counted): µs per decision,
decisions per second, and the compiled helm's speed-up over the numpy one. The doctrine's
decisions bound the doctrine and league stages of ``sfb train`` and every ``sfb bench`` row
against a doctrine captain (docs/training.md, "Throughput"). ``--quick``: a tiny run for the
tests.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# This tree's sfb_env and agents, not the editable install's (which may be another worktree).
sys.path.insert(0, str(ROOT))
from peers import machine  # noqa: E402  (benchmarks/ is sys.path[0])

import sfb_env  # noqa: E402
from agents import helm  # noqa: E402
from agents.base import bind_policy, make_policy  # noqa: E402

DEFAULT_SCENARIOS = ("duel-klingon-vs-federation", "grad-lyran-vs-hydran",
                     "grad-isc-full-vs-hydran")
CAPTAINS = (("doctrine", "numpy"), ("doctrine", "compiled"), ("random-fighter", ""))


def play(scenario: str, captain: str, steps: int, seed: int) -> tuple[int, float]:
    """Decisions made and seconds spent in ``act`` over ``steps`` env steps."""
    env = sfb_env.parallel_env(scenario=scenario, backend="compiled")
    decisions, seconds, game = 0, 0.0, 0
    observations: dict = {}
    captains: dict = {}
    for _ in range(steps):
        if not env.agents or not captains:
            observations, _ = env.reset(seed=seed + game)
            game += 1
            captains = {}
            for agent in env.agents:
                captains[agent] = make_policy(captain, seed=seed + game)
                bind_policy(captains[agent], env, agent)
        start = time.perf_counter()
        actions = {a: captains[a].act(observations[a], env.action_space(a)) for a in env.agents}
        seconds += time.perf_counter() - start
        decisions += len(actions)
        observations, *_ = env.step(actions)
    return decisions, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenarios", nargs="+", default=list(DEFAULT_SCENARIOS))
    parser.add_argument("--steps", type=int, default=600, help="env steps per row")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="a tiny run (the tests)")
    args = parser.parse_args(argv)
    steps = 40 if args.quick else args.steps
    scenarios = args.scenarios[:1] if args.quick else args.scenarios
    print("\n".join(machine()))
    print("| scenario | captain | helm | decisions | µs per decision | decisions/s "
          "| vs numpy helm |")
    print("|---|---|---|---:|---:|---:|---:|")
    compiled_plan = helm.plan
    for scenario in scenarios:
        play(scenario, "doctrine", 5, args.seed)  # compile / load the kernels untimed
        rates: dict[str, float] = {}
        for captain, helm_kind in CAPTAINS:
            helm.plan = helm.reference_plan if helm_kind == "numpy" else compiled_plan
            try:
                decisions, seconds = play(scenario, captain, steps, args.seed)
            finally:
                helm.plan = compiled_plan
            rate = decisions / seconds if seconds else float("nan")
            rates[helm_kind] = rate
            versus = f"{rate / rates['numpy']:.2f}x" if helm_kind == "compiled" else ""
            print(f"| {scenario} | {captain} | {helm_kind or '-'} | {decisions} | "
                  f"{1e6 / rate:.0f} | {rate:,.0f} | {versus} |")
        if rates.get("numpy"):
            print(f"compiled helm: {rates['compiled'] / rates['numpy']:.2f}x the numpy helm's "
                  f"decisions/s on {scenario}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
