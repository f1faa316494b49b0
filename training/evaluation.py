"""Evaluation: the learner's win rate against an opponent over N seeded games.

``evaluate_checkpoint`` plays through the bench harness (``agents.bench``: seeded games, every
action checked against the mask) whenever the opponent is a spec the harness flies (a registry
name, a checkpoint, or ``robot`` for a side without agents): one match per side the learner
flies, the games split between them, game i of a match on seed ``seed + i``.
``evaluate`` is the fallback loop over ``SingleAgentEnv`` for what the harness does not fly (a
league sampled per game, an engine robot given a ship the scenario gives to a player).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sfb_env.env.opponents import robot_controller
from sfb_env.env.single import SingleAgentEnv


@dataclass
class EvalResult:
    """Counts of one evaluation, from the learner's side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    undecided: int = 0
    returns: list[float] = field(default_factory=list)  # episode returns (local loop)
    margins: list[float] = field(default_factory=list)  # damage dealt - taken (bench)
    per_side: dict[str, EvalResult] = field(default_factory=dict)  # the same, per side flown

    def count(self, outcome: str | None, side: str | None = None) -> None:
        """Add one game's ``outcome`` (win/draw/loss, else undecided), also to ``side``'s."""
        if outcome == "win":
            self.wins += 1
        elif outcome == "draw":
            self.draws += 1
        elif outcome == "loss":
            self.losses += 1
        else:
            self.undecided += 1
        if side is not None:
            self.per_side.setdefault(side, EvalResult()).count(outcome)

    def merge(self, other: EvalResult, prefix: str) -> None:
        """Add ``other``'s counts; its sides join ``per_side`` as ``prefix/side`` (a
        multi-scenario evaluation: one entry per scenario and side)."""
        self.wins += other.wins
        self.draws += other.draws
        self.losses += other.losses
        self.undecided += other.undecided
        self.returns += other.returns
        self.margins += other.margins
        sides = other.per_side or {"all": other}
        for side, result in sides.items():
            self.per_side[f"{prefix}/{side}"] = result

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses + self.undecided

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def gate_rate(self, gate: str = "overall") -> float:
        """The win rate a stage gate compares: overall, or the worst side's (``every_side``),
        so a learner flying both sides cannot pass on one side's wins alone."""
        if gate == "every_side" and self.per_side:
            return min(r.win_rate for r in self.per_side.values())
        return self.win_rate

    @property
    def mean_return(self) -> float:
        return float(np.mean(self.returns)) if self.returns else 0.0

    def as_dict(self) -> dict[str, float]:
        out = {"games": self.games, "wins": self.wins, "draws": self.draws,
               "losses": self.losses, "win_rate": self.win_rate}
        if self.returns:
            out["mean_return"] = self.mean_return
        if self.margins:
            out["mean_damage_margin"] = float(np.mean(self.margins))
        if len(self.per_side) > 1:
            out.update({f"win_rate/{side}": r.win_rate for side, r in self.per_side.items()})
        return out


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
        result.count(info.get("outcome", {}).get("result"), side=agent)
        result.returns.append(total)
    for env in envs.values():
        env.close()
    return result


def bench_matches(
    scenario: str, agents: Sequence[str], learner: str, opponent: Any
) -> list[tuple[Any, bool]] | None:
    """The bench matches (with "the learner is blue") that evaluate ``learner`` flying
    ``agents`` against ``opponent``, or None if the harness cannot fly that opponent."""
    from agents.bench import ROBOT, Match, sides_with_agents

    if not isinstance(opponent, str) or opponent == "league":
        return None
    sides = sides_with_agents(scenario)
    names = list(sides)
    red_agents = [a for s in names[1:] for a in sides[s]]
    matches = []
    for blue in (True, False):
        mine = sides[names[0]] if blue else red_agents
        theirs = red_agents if blue else sides[names[0]]
        if not any(a in agents for a in mine):
            continue
        if theirs:
            if robot_controller(opponent) is not None:
                return None  # an engine robot flying a player's ship: not a bench match
            other = opponent
        else:
            other = ROBOT  # that side is the scenario's robots whatever the stage says
        matches.append((Match(scenario, learner if blue else other,
                              other if blue else learner), blue))
    return matches or None


def evaluate_checkpoint(
    path: str, scenario: str, matches: Sequence[tuple[Any, bool]], games: int, seed: int = 0
) -> EvalResult:
    """Play ``games`` games of the checkpoint at ``path`` over the bench ``matches``."""
    from agents.bench import plan_games, run_games

    per_match = max(1, games // len(matches))
    results = run_games(plan_games([m for m, _ in matches], per_match, seed), workers=1,
                        progress=False)
    flip = {"win": "loss", "loss": "win", "draw": "draw"}
    out = EvalResult()
    for game in results:
        blue = matches[game.match][1]
        outcome = game.result if blue else (game.red_result
                                             or flip.get(game.result, game.result))
        out.count(outcome if outcome in flip else "loss", side="blue" if blue else "red")
        dealt, taken = (game.damage_dealt, game.damage_taken) if blue else (
            game.damage_taken, game.damage_dealt)
        out.margins.append(float(dealt - taken))
    return out
