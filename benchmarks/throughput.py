"""Throughput of the environment and of the engine alone, one tree or two side by side.

Single tree (this one)::

    python benchmarks/throughput.py [--scenario cth-03] [--steps 20000]

* env: ``SFBParallelEnv.step`` with random-masked actions (sampling included), in env steps/s
  (one step = one impulse of the battle) and agent-steps/s (env steps x live agents);
* engine: ``Battle.step`` replaying the same orders without the PettingZoo layer (no masks, no
  observations).  This part uses the env's internals, so it only runs on this tree.

Side by side, this working tree (uncommitted changes included) against a git revision::

    python benchmarks/throughput.py --against HEAD~1 [--scenarios cth-03 ...]
                                    [--seconds 5] [--repeats 3] [--seed 0]

checks ``REV`` out into a temporary folder (``git archive REV | tar -x``, removed afterwards),
then for each scenario measures env steps/s of both trees, each run in a fresh interpreter
(``benchmarks/env_rate.py`` of this tree, with the measured tree first on ``sys.path`` and as the
working directory), interleaved so machine noise hits both: REV then tree, tree then REV, ...
for ``--repeats`` rounds (each run's figures go to stderr as they come).  The measuring code
uses only the public env API, and both trees play the same seeds with the same random-masked
policy.  It prints one table of medians over the repeats: scenario, env steps/s of REV, of the
working tree, ratio (tree / REV; above 1 means the working tree is faster) -- once by the wall
clock and once per CPU-second of the measuring process, which is steadier when other processes
load the machine.  Default scenarios: cth-03, duel-klingon-vs-federation,
grad-isc-full-vs-hydran.

Run on one core for steadier figures: ``taskset -c 0 python benchmarks/throughput.py ...``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ENV_RATE = ROOT / "benchmarks" / "env_rate.py"
DEFAULT_SCENARIOS = ("cth-03", "duel-klingon-vs-federation", "grad-isc-full-vs-hydran")

# This tree's sfb_env, not the editable install's (which may be another worktree).
sys.path.insert(0, str(ROOT))
from env_rate import masked_sample  # noqa: E402  (benchmarks/ is sys.path[0] as a script)

# --- single tree: env and engine alone --------------------------------------------------------


def bench_env(
    scenario: str, steps: int, seed: int = 0
) -> tuple[float, float, int, list[tuple[int, dict[Any, Any]]]]:
    """Env steps/s, agent-steps/s, episodes played and the orders given, step by step."""
    import sfb_env

    env = sfb_env.parallel_env(scenario)
    rng = np.random.default_rng(seed)
    done = agent_steps = episodes = 0
    recorded: list[tuple[int, dict[Any, Any]]] = []
    t0 = time.perf_counter()
    while done < steps:
        obs, _ = env.reset(seed=episodes)
        while env.agents and done < steps:
            actions = {
                a: masked_sample(rng, env.action_space(a).nvec, obs[a]["action_mask"])
                for a in env.agents
            }
            orders = {
                env._layouts[a].unit: env._layouts[a].to_orders(
                    env.battle, actions[a], env._slots[a]
                )
                for a in actions
            }
            recorded.append((episodes, orders))
            agent_steps += len(actions)
            obs, *_ = env.step(actions)
            done += 1
        episodes += 1
    elapsed = time.perf_counter() - t0
    return done / elapsed, agent_steps / elapsed, episodes, recorded


def bench_engine(scenario: str, recorded: list[tuple[int, dict[Any, Any]]]) -> float:
    """Engine steps/s replaying ``recorded`` through ``Battle.step``."""
    import sfb_env

    battle = sfb_env.make_battle(scenario)
    current = None
    t0 = time.perf_counter()
    for episode, orders in recorded:
        if episode != current:
            battle.reset(episode)
            current = episode
        battle.step(orders)
    return len(recorded) / (time.perf_counter() - t0)


def single_tree(scenario: str, steps: int) -> None:
    env_sps, agent_sps, episodes, recorded = bench_env(scenario, steps)
    engine_sps = bench_engine(scenario, recorded)
    print(f"scenario {scenario}: {steps} env steps over {episodes} episodes")
    print(
        f"env (random-masked actions): {env_sps:,.0f} env steps/s, "
        f"{agent_sps:,.0f} agent-steps/s"
    )
    print(f"engine alone (same orders):  {engine_sps:,.0f} steps/s")


# --- side by side: this tree against a revision -----------------------------------------------


def git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def export_revision(rev: str, dest: Path) -> None:
    """The files of ``rev`` under ``dest`` (``git archive rev | tar -x -C dest``)."""
    archive = subprocess.Popen(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev], stdout=subprocess.PIPE
    )
    assert archive.stdout is not None
    untar = subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout)
    archive.stdout.close()
    if archive.wait() != 0 or untar.returncode != 0:
        raise RuntimeError(f"could not export {rev} into {dest}")


def measure(tree: Path, scenario: str, seconds: float, seed: int) -> dict[str, Any]:
    """One run of ``env_rate.py`` (this tree's copy) against ``tree`` in a fresh interpreter."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(tree), env.get("PYTHONPATH", "")) if p
    )
    proc = subprocess.run(
        [sys.executable, str(ENV_RATE), "--root", str(tree), "--scenario", scenario,
         "--seconds", str(seconds), "--seed", str(seed)],
        cwd=tree, env=env, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{scenario} in {tree} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def side_by_side(
    rev: str, scenarios: Sequence[str], seconds: float, repeats: int, seed: int
) -> None:
    try:
        commit = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    except subprocess.CalledProcessError:
        sys.exit(f"throughput: {rev!r} is not a commit of {ROOT}")
    label = f"{rev} ({git('log', '-1', '--format=%h %s', commit)[:60]})"
    head = git("log", "-1", "--format=%h")
    dirty = " + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    tmp = Path(tempfile.mkdtemp(prefix="sfb-bench-"))
    try:
        export_revision(commit, tmp)
        trees = {"rev": tmp, "tree": ROOT}
        print(f"REV  = {label}, exported to {tmp}", file=sys.stderr)
        print(f"tree = {ROOT} (HEAD {head}{dirty})", file=sys.stderr)
        rates: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for scenario in scenarios:
            rates[scenario] = {"rev": [], "tree": []}
            for r in range(repeats):
                order = ("rev", "tree") if r % 2 == 0 else ("tree", "rev")
                for side in order:
                    result = measure(trees[side], scenario, seconds, seed)
                    rates[scenario][side].append(result)
                    print(
                        f"  {scenario} #{r + 1} {side:4}: "
                        f"{result['env_steps_per_s']:7,.0f} env steps/s, "
                        f"{result['env_steps_per_cpu_s']:7,.0f} per CPU-s "
                        f"({result['steps']} steps, {result['episodes']} episodes)",
                        file=sys.stderr,
                    )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def median(scenario: str, side: str, key: str) -> float:
        return statistics.median(run[key] for run in rates[scenario][side])

    print(f"\nenv steps/s, random-masked actions, median of {repeats} x {seconds:g} s runs")
    print(f"REV  = {label}\ntree = {ROOT} (HEAD {head}{dirty})\n")
    width = max(len("scenario"), *(len(s) for s in scenarios))
    print(f"{'':<{width}}  {'env steps/s (wall clock)':^30}  {'env steps per CPU-second':^30}")
    print(f"{'scenario':<{width}}" + f"  {'REV':>10}  {'tree':>8}  {'tree/REV':>8}" * 2)
    for scenario in scenarios:
        line = f"{scenario:<{width}}"
        for key in ("env_steps_per_s", "env_steps_per_cpu_s"):
            a, b = median(scenario, "rev", key), median(scenario, "tree", key)
            line += f"  {a:>10,.0f}  {b:>8,.0f}  {b / a:>8.3f}"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--against", metavar="REV",
                        help="compare this working tree with git revision REV, side by side")
    single = parser.add_argument_group("single tree (without --against)")
    single.add_argument("--scenario", default="cth-03")
    single.add_argument("--steps", type=int, default=20_000)
    both = parser.add_argument_group("side by side (with --against)")
    both.add_argument("--scenarios", nargs="+", default=list(DEFAULT_SCENARIOS))
    both.add_argument("--seconds", type=float, default=5.0, help="length of one run")
    both.add_argument("--repeats", type=int, default=3, help="runs per tree and scenario")
    both.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.against is None:
        single_tree(args.scenario, args.steps)
    else:
        if args.repeats < 1 or args.seconds <= 0:
            parser.error("--repeats must be >= 1 and --seconds > 0")
        try:
            side_by_side(args.against, args.scenarios, args.seconds, args.repeats, args.seed)
        except RuntimeError as error:
            sys.exit(f"throughput: {error}")


if __name__ == "__main__":
    main()
