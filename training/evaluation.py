"""Evaluation: the learner's win rate against an opponent over N seeded games.

A small loop over ``SingleAgentEnv`` (raw spaces; the learner policy pads for itself). Game
``g`` uses seed ``seed + g`` and, when the learner flies several ships (self-play, alternate
sides), the ship ``agents[g % len(agents)]``, so every evaluation replays the same battles.
(Kept local to training: the bench harness, ``agents/bench.py``, measures policies with its own
statistics; this loop only gates the curriculum and the league.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sfb_env.env.single import SingleAgentEnv


@dataclass
class EvalResult:
    """Counts of one evaluation, from the learner's side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    undecided: int = 0
    returns: list[float] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses + self.undecided

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_return(self) -> float:
        return float(np.mean(self.returns)) if self.returns else 0.0

    def as_dict(self) -> dict[str, float]:
        return {"games": self.games, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "win_rate": self.win_rate,
                "mean_return": self.mean_return}


def evaluate(
    policy: Any,
    scenario: str | Mapping[str, Any],
    agents: Sequence[str],
    opponent: Any,
    games: int,
    seed: int = 0,
    **env_options: Any,
) -> EvalResult:
    """Play ``games`` games of ``policy`` (a ``Policy``) flying ``agents`` in turn against
    ``opponent`` (any opponent spec of ``sfb_env.env.opponents``)."""
    envs = {a: SingleAgentEnv(scenario, agent=a, opponents=opponent, **env_options)
            for a in agents}
    result = EvalResult()
    for g in range(games):
        agent = agents[g % len(agents)]
        env = envs[agent]
        vector, _ = env.reset(seed=seed + g)
        policy.reset(seed + g)
        done, total, info = False, 0.0, {}
        while not done:
            obs = {"observation": vector, "action_mask": env.action_masks().astype(np.int8)}
            vector, reward, terminated, truncated, info = env.step(
                policy.act(obs, env.action_space))
            total += reward
            done = terminated or truncated
        outcome = info.get("outcome", {}).get("result")
        if outcome == "win":
            result.wins += 1
        elif outcome == "draw":
            result.draws += 1
        elif outcome == "loss":
            result.losses += 1
        else:
            result.undecided += 1
        result.returns.append(total)
    for env in envs.values():
        env.close()
    return result
