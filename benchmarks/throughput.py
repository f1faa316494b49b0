"""Throughput of the environment and of the engine alone, printed as figures.

    python benchmarks/throughput.py [--scenario cth-03] [--steps 20000]

* env: ``SFBParallelEnv.step`` with random-masked actions (sampling included), in env steps/s
  (one step = one impulse of the battle) and agent-steps/s (env steps x live agents);
* engine: ``Battle.step`` replaying the same orders without the PettingZoo layer (no masks, no
  observations).
Run on one core: ``taskset -c 0 python benchmarks/throughput.py``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import sfb_env


def masked_sample(rng: np.random.Generator, nvec: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A uniformly random allowed value per component (vectorised over the flat mask)."""
    keys = np.where(mask.astype(bool), rng.random(mask.shape[0]), -1.0)
    bounds = np.concatenate([[0], np.cumsum(nvec)])
    return np.array(
        [int(np.argmax(keys[a:b])) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    )


def bench_env(scenario: str, steps: int, seed: int = 0):
    env = sfb_env.parallel_env(scenario)
    rng = np.random.default_rng(seed)
    done = agent_steps = episodes = 0
    recorded: list[tuple[int, dict]] = []
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


def bench_engine(scenario: str, recorded: list[tuple[int, dict]]) -> float:
    battle = sfb_env.make_battle(scenario)
    current = None
    t0 = time.perf_counter()
    for episode, orders in recorded:
        if episode != current:
            battle.reset(episode)
            current = episode
        battle.step(orders)
    return len(recorded) / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenario", default="cth-03")
    parser.add_argument("--steps", type=int, default=20_000)
    args = parser.parse_args()
    env_sps, agent_sps, episodes, recorded = bench_env(args.scenario, args.steps)
    engine_sps = bench_engine(args.scenario, recorded)
    print(f"scenario {args.scenario}: {args.steps} env steps over {episodes} episodes")
    print(
        f"env (random-masked actions): {env_sps:,.0f} env steps/s, "
        f"{agent_sps:,.0f} agent-steps/s"
    )
    print(f"engine alone (same orders):  {engine_sps:,.0f} steps/s")


if __name__ == "__main__":
    main()
