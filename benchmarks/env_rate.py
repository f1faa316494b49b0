"""Env steps/s of one scenario through the public env API only, printed as one JSON line.

    python benchmarks/env_rate.py --root TREE --scenario cth-03 --seconds 5 [--seed 0]

``benchmarks/throughput.py --against REV`` runs this file (always the working tree's copy) in a
fresh interpreter for each tree it compares, with ``TREE`` first on ``sys.path``, so both trees
are driven by the same measuring code.  That is why it is standalone (imports nothing from
``benchmarks``) and touches only the public env API, which every revision has:
``sfb_env.parallel_env(name)``, ``reset(seed=)``, ``step``, ``agents``, ``action_space(a).nvec``
and ``obs[a]["action_mask"]`` -- never the env's internals, which change between revisions.

The policy is random-masked: a uniformly random allowed value per action component, drawn from
one ``numpy`` generator seeded with ``--seed``; episode ``k`` is reset with seed ``--seed + k``.
Both trees therefore play the same battles (as long as their rules agree), the faster one just
gets further in the ``--seconds`` (wall clock) it is given.  Env construction and imports are not
timed; resets, sampling and ``step`` are, by the wall clock and by the process's CPU time (the
steadier figure when other processes load the machine).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def masked_sample(rng: np.random.Generator, nvec: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A uniformly random allowed value per component (vectorised over the flat mask)."""
    keys = np.where(mask.astype(bool), rng.random(mask.shape[0]), -1.0)
    bounds = np.concatenate([[0], np.cumsum(nvec)])
    return np.array(
        [int(np.argmax(keys[a:b])) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    )


def env_rate(scenario: str, seconds: float, seed: int = 0) -> dict[str, float | int | str]:
    """Step ``scenario`` with random-masked actions for ``seconds``; the figures as a dict."""
    import sfb_env

    env = sfb_env.parallel_env(scenario)
    rng = np.random.default_rng(seed)
    steps = agent_steps = episodes = 0
    c0 = time.process_time()
    t0 = time.perf_counter()
    deadline = t0 + seconds
    now = t0
    while now < deadline:
        obs, _ = env.reset(seed=seed + episodes)
        episodes += 1
        while env.agents and now < deadline:
            actions = {
                a: masked_sample(rng, env.action_space(a).nvec, obs[a]["action_mask"])
                for a in env.agents
            }
            obs, *_ = env.step(actions)
            steps += 1
            agent_steps += len(actions)
            now = time.perf_counter()
    elapsed = now - t0
    cpu = time.process_time() - c0
    return {
        "scenario": scenario,
        "module": str(Path(sfb_env.__file__).resolve()),
        "seconds": elapsed,
        "steps": steps,
        "episodes": episodes,
        "env_steps_per_s": steps / elapsed,
        "agent_steps_per_s": agent_steps / elapsed,
        "cpu_seconds": cpu,
        "env_steps_per_cpu_s": steps / cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, required=True,
                        help="the tree to measure (its sfb_env is imported)")
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    root = args.root.resolve()
    sys.path.insert(0, str(root))
    result = env_rate(args.scenario, args.seconds, args.seed)
    if not Path(str(result["module"])).is_relative_to(root):
        sys.exit(f"env_rate: imported {result['module']}, not the sfb_env of {root}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
