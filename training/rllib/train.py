"""Multi-agent PPO on sfb-env with RLlib's new API stack, locally or on a Ray cluster.

    python -m training.rllib.train --scenario duel-klingon-vs-federation --policies per-side \
        --iterations 50 [--address auto | ray://head:10001] [--num-env-runners 4] \
        [--envs-per-runner 4] [--num-learners 1 --num-gpus-per-learner 1]

The env is RLlib's ``ParallelPettingZooEnv`` over ``sfb_env.parallel_env``; every module is a
``MaskedPPOTorchRLModule`` (masked logits, see ``training/rllib/masking.py``).
``--policies shared``: one module flies every ship (``uniform_spaces=True`` pads them to one
space); ``per-side``: one module per scenario side (``klingon``, ``federation``, ...).
Checkpoints: ``Algorithm.save_to_path`` under ``--output``; env steps/s per iteration and for the
run are printed and written to ``--output``/throughput.json (``training/rllib/throughput.py``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv
from ray.tune.registry import register_env

import sfb_env
from sfb_env.engine.scenario import load_scenario
from training.rllib.masking import MaskedPPOTorchRLModule
from training.rllib.throughput import Throughput, row_line

ENV_NAME = "sfb_v1"


def make_env(env_config: dict[str, Any]) -> ParallelPettingZooEnv:
    """The RLlib env: ``env_config`` = scenario + ``sfb_env.parallel_env`` options."""
    options = dict(env_config)
    options.setdefault("illegal_action", "raise")  # the masks always apply: refuse, not patch
    return ParallelPettingZooEnv(sfb_env.parallel_env(options.pop("scenario"), **options))


def side_of(scenario: str) -> dict[str, str]:
    """Agent id -> side name, from the scenario."""
    return {u.id: u.side for u in load_scenario(scenario).units if u.controller == "agent"}


def env_engines(runner: Any) -> list[str]:
    """The engine (``sfb_env.backend_of``) under each env of one env runner."""
    # Imported here: Ray pickles this function (by value under ``python -m``) and failed on
    # one that reached ``sfb_env.backend_of`` from outside ("cannot pickle _CallablePackage").
    from sfb_env.backends import backend_of

    return [backend_of(env.unwrapped.par_env) for env in runner.env.envs]


def runner_backends(algo: Any) -> list[list[str]]:
    """Per remote env runner: the engines under its envs."""
    return algo.env_runner_group.foreach_env_runner(env_engines, local_env_runner=False)


def build_config(args: argparse.Namespace) -> PPOConfig:
    shared = args.policies == "shared"
    env_config = {"scenario": args.scenario, "uniform_spaces": shared, "reward": args.reward}
    probe = sfb_env.parallel_env(args.scenario, uniform_spaces=shared)
    sides = side_of(args.scenario)
    if shared:
        modules = {"shared": probe.possible_agents[0]}

        def mapping(agent_id: str, *_: Any, **__: Any) -> str:
            return "shared"
    else:
        modules = {}
        for agent, side in sides.items():
            modules.setdefault(side, agent)

        def mapping(agent_id: str, *_: Any, **__: Any) -> str:
            return sides[agent_id]
    specs = {
        module: RLModuleSpec(
            module_class=MaskedPPOTorchRLModule,
            observation_space=probe.observation_space(agent),
            action_space=probe.action_space(agent),
            model_config={"fcnet_hiddens": list(args.hiddens), "vf_share_layers": False},
        )
        for module, agent in modules.items()
    }
    if not shared:  # a side flies ships of one class only here; refuse silent mismatches
        for agent, side in sides.items():
            if probe.action_space(agent) != specs[side].action_space:
                raise SystemExit(f"side {side!r} has ships with different spaces; use "
                                 "--policies shared")
    return (
        PPOConfig()
        # RLlib's env checker steps unmasked random actions, which the env refuses (by design)
        .environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .env_runners(num_env_runners=args.num_env_runners,
                     num_envs_per_env_runner=args.envs_per_runner)
        .learners(num_learners=args.num_learners, num_gpus_per_learner=args.num_gpus_per_learner)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=args.minibatch,
                  num_epochs=args.epochs, lr=args.lr, gamma=args.gamma,
                  entropy_coeff=args.entropy)
        .debugging(seed=args.seed)
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenario", default="duel-klingon-vs-federation")
    parser.add_argument("--policies", choices=("shared", "per-side"), default="per-side")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--address", help="Ray cluster address (auto, ray://host:10001); "
                                          "default: a local Ray")
    parser.add_argument("--num-env-runners", type=int, default=2)
    parser.add_argument("--envs-per-runner", type=int, default=1,
                        help="envs each runner steps as one batch (one module call per step)")
    parser.add_argument("--num-learners", type=int, default=0,
                        help="remote learner actors (0: one learner in the driver)")
    parser.add_argument("--num-gpus-per-learner", type=float, default=0.0)
    parser.add_argument("--batch", type=int, default=4000, help="train batch per learner")
    parser.add_argument("--minibatch", type=int, default=500)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--hiddens", type=int, nargs="+", default=[256, 256])
    parser.add_argument("--reward", default="shaped", choices=("shaped", "points", "sparse"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", default="runs/rllib", help="checkpoint folder")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    register_env(ENV_NAME, make_env)
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=max(2, args.num_env_runners + 1), include_dashboard=False)
    algo = build_config(args).build_algo()
    backends = runner_backends(algo)
    print(f"== RLlib PPO (ray {ray.__version__}) on {args.scenario}, policies {args.policies}: "
          f"{args.iterations} iterations, {args.num_env_runners} env runners, engines "
          f"{backends}, cluster CPUs {ray.cluster_resources().get('CPU', 0):.0f} ==")
    throughput = Throughput()
    for i in range(1, args.iterations + 1):
        start = time.perf_counter()
        result = algo.train()
        row = throughput.record(result, time.perf_counter() - start)
        runners = result.get("env_runners", {})
        returns = runners.get("module_episode_returns_mean", {})
        print(f"iteration {i}: {row_line(row)}, episode return mean "
              f"{runners.get('episode_return_mean', float('nan')):.3f}, "
              f"per module {({k: round(float(v), 3) for k, v in returns.items()})}")
    total = throughput.summary()
    print(f"run: {total['env_steps']:.0f} env steps (num_env_steps_sampled_lifetime) in "
          f"{total['seconds']:.1f} s of train() = {total['env_steps_per_s']:.1f} env steps/s")
    output = Path(args.output).resolve()
    throughput.save(output / "throughput.json", ray=ray.__version__, scenario=args.scenario,
                    policies=args.policies, num_env_runners=args.num_env_runners,
                    envs_per_runner=args.envs_per_runner, batch=args.batch,
                    address=args.address, cluster_cpus=ray.cluster_resources().get("CPU", 0),
                    engines=backends)
    path = algo.save_to_path(str(output))
    print(f"checkpoint: {path}")
    algo.stop()
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
