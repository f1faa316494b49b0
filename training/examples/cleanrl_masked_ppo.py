"""Masked PPO for sfb-env in one file, CleanRL style (PPO with invalid-action masking over a
MultiDiscrete action, shared-policy self-play on a cadet duel by default).

    python training/examples/cleanrl_masked_ppo.py --scenario duel-klingon-vs-federation \
        --total-timesteps 200000 --self-play
    tensorboard --logdir runs/cleanrl

Everything is here on purpose (environment batch, network, masked categorical, GAE, clipped
update, logging); the library version with curriculum, league and checkpoints is `sfb train`.
The environment is ``sfb_env.env.vector.AgentVectorEnv``: every (battle, learner ship) pair is
one row of the batch, masks come from ``envs.action_masks()``.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.utils.tensorboard import SummaryWriter

import agents  # noqa: F401 - installs the loader of named opponents (--opponent)
from sfb_env.env.padding import FixedSpaces
from sfb_env.env.vector import AgentVectorEnv


@dataclass
class Args:
    scenario: str = "duel-klingon-vs-federation"
    self_play: bool = False  # shared policy flies both ships; else alternate sides vs opponent
    opponent: str = "random"
    seed: int = 1
    total_timesteps: int = 200_000
    num_envs: int = 8  # rows of the batch (battles x learner ships)
    num_steps: int = 128
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    run_name: str = ""


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default in vars(Args()).items():
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, action="store_true")
        else:
            parser.add_argument(flag, type=type(default), default=default)
    return Args(**vars(parser.parse_args()))


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class Agent(nn.Module):
    """Separate actor and critic MLPs; the actor's logits are split per action component."""

    def __init__(self, obs_size: int, nvec: np.ndarray) -> None:
        super().__init__()
        self.nvec = [int(n) for n in nvec]
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size, 256)), nn.Tanh(),
            layer_init(nn.Linear(256, 256)), nn.Tanh(),
            layer_init(nn.Linear(256, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_size, 256)), nn.Tanh(),
            layer_init(nn.Linear(256, 256)), nn.Tanh(),
            layer_init(nn.Linear(256, sum(self.nvec)), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x, mask, action=None):
        """Masked logits (-1e8 where the mask forbids) -> one Categorical per component."""
        logits = torch.where(mask, self.actor(x), torch.tensor(-1e8))
        dists = [torch.distributions.Categorical(logits=part)
                 for part in torch.split(logits, self.nvec, dim=1)]
        if action is None:
            action = torch.stack([d.sample() for d in dists], dim=1)
        logprob = torch.stack([d.log_prob(a) for d, a in zip(dists, action.T, strict=True)])
        entropy = torch.stack([d.entropy() for d in dists])
        return action, logprob.sum(0), entropy.sum(0), self.critic(x)


def main() -> None:
    args = parse_args()
    run_name = args.run_name or f"{args.scenario}__{args.seed}__{int(time.time())}"
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = args.total_timesteps // batch_size
    print(f"== masked PPO on {args.scenario}: seed {args.seed}, {num_iterations} iterations "
          f"of {batch_size} steps, self-play={args.self_play} ==")
    writer = SummaryWriter(f"runs/cleanrl/{run_name}")
    writer.add_text("hyperparameters", "\n".join(f"|{k}|{v}|" for k, v in vars(args).items()))

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    fixed = FixedSpaces()
    if args.self_play:
        ships = 2  # a duel: both ships are rows of the batch
        envs = AgentVectorEnv(args.scenario, args.num_envs // ships, learners="all",
                              fixed_spaces=fixed, seed=args.seed)
    else:
        envs = AgentVectorEnv(args.scenario, args.num_envs, learners="alternate",
                              opponents=args.opponent, fixed_spaces=fixed, seed=args.seed)
    n = envs.num_slots
    nvec = envs.action_space.nvec
    agent = Agent(envs.observation_space.shape[0], nvec)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, n, envs.observation_space.shape[0]))
    masks = torch.zeros((args.num_steps, n, int(nvec.sum())), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, n, len(nvec)), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, n))
    rewards = torch.zeros((args.num_steps, n))
    dones = torch.zeros((args.num_steps, n))
    values = torch.zeros((args.num_steps, n))

    global_step = 0
    start = time.time()
    next_obs = torch.tensor(envs.reset(seed=args.seed))
    next_mask = torch.tensor(envs.action_masks())
    next_done = torch.zeros(n)
    results: list[float] = []
    for iteration in range(1, num_iterations + 1):
        frac = 1.0 - (iteration - 1.0) / num_iterations
        optimizer.param_groups[0]["lr"] = frac * args.learning_rate
        for step in range(args.num_steps):
            global_step += n
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob
            o, r, term, trunc, infos = envs.step(action.numpy())
            rewards[step] = torch.tensor(r)
            next_obs, next_mask = torch.tensor(o), torch.tensor(envs.action_masks())
            next_done = torch.tensor(term | trunc, dtype=torch.float32)
            for info in infos:
                if "episode" in info:
                    writer.add_scalar("charts/episodic_return", info["episode"]["r"], global_step)
                    writer.add_scalar("charts/episodic_length", info["episode"]["l"], global_step)
                    if "result" in info:
                        results.append(1.0 if info["result"] == "win" else 0.0)

        with torch.no_grad():  # generalized advantage estimation
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                nextnonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                nextvalues = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
                advantages[t] = lastgaelam
            returns = advantages + values

        b_obs = obs.reshape(-1, obs.shape[-1])
        b_masks = masks.reshape(-1, masks.shape[-1])
        b_actions = actions.reshape(-1, len(nvec))
        b_logprobs, b_advantages = logprobs.reshape(-1), advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_inds = np.arange(batch_size)
        for _ in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for begin in range(0, batch_size, minibatch_size):
                mb = b_inds[begin:begin + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(
                    ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        sps = int(global_step / (time.time() - start))
        win_rate = float(np.mean(results[-100:])) if results else float("nan")
        writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
        writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
        writer.add_scalar("losses/entropy", entropy.mean().item(), global_step)
        writer.add_scalar("charts/win_rate_last_100", win_rate, global_step)
        writer.add_scalar("charts/SPS", sps, global_step)
        print(f"iteration {iteration}/{num_iterations}  step {global_step}  SPS {sps}  "
              f"win rate (last 100) {win_rate:.2f}")
    envs.close()
    writer.close()


if __name__ == "__main__":
    main()
