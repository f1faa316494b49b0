"""The benchmark harness: matches over scenarios and seeds, honest statistics, ratings.

A *match* is one scenario with a policy per side (blue = the scenario's first side, red = the
others); game i of a match uses seed ``seed + i``. Games run in parallel processes (or as Ray
tasks) and come back sorted by game index, so the same command prints the same results.

Every action is checked against the action mask before it reaches the env: a masked choice
raises ``PolicyActionError`` naming the policy, the agent, the component and the rule.

Usage::

    matches = [Match("duel-klingon-vs-federation", "klingon-doctrine", "random")]
    games = run_games(plan_games(matches, games=20, seed=0), workers=2)
    stats = match_stats(matches, games); ratings = rate(games)
"""

from __future__ import annotations

import math
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

import numpy as np

import sfb_env
from agents.base import bind_policy, load_policy, view_options
from sfb_env.engine import load_scenario
from sfb_env.engine.types import UnitKind

ROBOT = "robot"
RANDOM = "random"
Z95 = 1.959963984540054  # two-sided 95% normal quantile


class PolicyActionError(ValueError):
    """A policy chose a value its action mask forbids (or an action of the wrong shape)."""


@dataclass(frozen=True)
class Match:
    """One scenario with the policy spec flying each side (``robot``: the scenario's robots)."""

    scenario: str
    blue: str
    red: str


@dataclass(frozen=True)
class GameSpec:
    """One game to play: its global index, its match and its seed."""

    index: int
    match: int
    scenario: str
    blue: str
    red: str
    seed: int


@dataclass(frozen=True)
class GameResult:
    """The outcome of one game, from blue's side."""

    index: int
    match: int
    scenario: str
    blue: str
    red: str
    seed: int
    result: str  # "win", "draw" or "loss" for blue
    level: str
    reason: str
    damage_dealt: int  # points (shield + internal) blue scored on red ships and freighters
    damage_taken: int
    impulses: int  # env steps
    turns: float  # impulses / impulses per turn
    red_result: str = ""  # the first other side's own result: outcomes need not be zero-sum
    #   (scenario 5: a side that disengages draws, the other wins a tactical victory)

    @property
    def red_outcome(self) -> str:
        """Red's result: its own where recorded, else blue's flipped (results before it was)."""
        return self.red_result or _FLIP[self.result]


# ---------------------------------------------------------------------- planning


@cache
def _sides(scenario: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    spec = load_scenario(scenario)
    return tuple((s, tuple(u.id for u in spec.units if u.side == s and u.controller == "agent"))
                 for s in spec.sides)


def sides_with_agents(scenario: str) -> dict[str, list[str]]:
    """Each side of ``scenario`` with the agents (ships players command) on it."""
    return {side: list(agents) for side, agents in _sides(scenario)}


def blue_agents(scenario: str) -> list[str]:
    """The agents of ``scenario``'s first side: the bench's blue (the others are red)."""
    return list(_sides(scenario)[0][1])


def default_policy(scenario: str, side: int) -> str:
    """What flies a side left out: its robots if it has no agents, else ``random``."""
    sides = list(sides_with_agents(scenario).values())
    agents_on = sides[0] if side == 0 else [a for s in sides[1:] for a in s]
    return RANDOM if agents_on else ROBOT


def check_match(match: Match) -> None:
    """Refuse a match whose policies cannot fly their sides (names the policy and side)."""
    sides = sides_with_agents(match.scenario)
    names = list(sides)
    for spec, side_names in ((match.blue, names[:1]), (match.red, names[1:])):
        agents = [a for s in side_names for a in sides[s]]
        if spec == ROBOT and agents:
            raise ValueError(f"policy 'robot' cannot fly {'/'.join(side_names)} in "
                             f"{match.scenario}: its ships {agents} are agents")
        if spec != ROBOT and not agents:
            raise ValueError(f"policy {spec!r} cannot fly {'/'.join(side_names)} in "
                             f"{match.scenario}: that side has no agents (the scenario's robots "
                             f"fly it; use 'robot')")
        if spec.endswith(".zip"):
            from agents.sb3_policy import check_checkpoint

            check_checkpoint(spec, load_scenario(match.scenario).name)
        if spec != ROBOT:
            load_policy(spec)  # a bad name or path fails here, naming it


def round_robin(policies: Sequence[str], scenarios: Sequence[str]) -> list[Match]:
    """Every ordered pair of distinct policies on every scenario; a side with no agents is
    flown by its robots, so there each policy plays once against them."""
    matches = []
    for scenario in scenarios:
        red_robot = default_policy(scenario, 1) == ROBOT
        blue_robot = default_policy(scenario, 0) == ROBOT
        if red_robot or blue_robot:
            matches += [Match(scenario, ROBOT if blue_robot else p, ROBOT if red_robot else p)
                        for p in policies]
            continue
        matches += [Match(scenario, p, q) for p in policies for q in policies if p != q]
    return matches


def plan_games(matches: Sequence[Match], games: int, seed: int) -> list[GameSpec]:
    """``games`` games per match; game i of each match uses seed ``seed + i``."""
    out = []
    for m, match in enumerate(matches):
        for i in range(games):
            out.append(GameSpec(len(out), m, match.scenario, match.blue, match.red, seed + i))
    return out


# ---------------------------------------------------------------------- playing

_ENVS: dict[tuple[str, tuple[str, ...]], Any] = {}
_POLICIES: dict[tuple[str, str, str], Any] = {}


def _env(scenario: str, views: dict[str, bool]):
    """The game's env: ``scenario`` with the view options its policies read."""
    key = (scenario, tuple(sorted(views)))
    if key not in _ENVS:
        _ENVS[key] = sfb_env.parallel_env(scenario, **views)
    return _ENVS[key]


def _policy(spec: str, scenario: str, agent: str):
    key = (spec, scenario, agent)
    if key not in _POLICIES:
        _POLICIES[key] = load_policy(spec)
    return _POLICIES[key]


def policy_seed(seed: int, k: int) -> int:
    """The seed of the k-th agent's policy in a game of ``seed`` (independent streams)."""
    return int(np.random.SeedSequence([seed, k]).generate_state(1)[0])


def check_action(
    policy: str, agent: str, env: Any, action: Any, mask: np.ndarray, where: str = ""
) -> np.ndarray:
    """``action`` as an int64 vector, or ``PolicyActionError`` if the mask forbids any part
    (``where``: the game, for the message)."""
    space = env.action_space(agent)
    nvec = np.asarray(space.nvec)
    try:
        action = np.asarray(action, dtype=np.int64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise PolicyActionError(f"policy {policy!r} flying {agent!r}{where} returned {action!r}: "
                                f"not an integer vector ({exc})") from exc
    if action.shape != nvec.shape:
        raise PolicyActionError(f"policy {policy!r} flying {agent!r}{where} returned an action "
                                f"of shape {action.shape}; its space needs {nvec.shape}")
    names = [c["name"] for c in env.action_components(agent)]
    for name, value, part in zip(names, action, space.split_mask(mask), strict=True):
        if not (0 <= value < len(part) and part[value]):
            reasons = env.mask_reasons(agent).get(name, {}) if 0 <= value < len(part) else {}
            rule = reasons.get(int(value), f"value outside 0..{len(part) - 1}")
            raise PolicyActionError(
                f"policy {policy!r} flying {agent!r}{where} chose {name}={int(value)}, which the "
                f"action mask forbids ({rule})")
    return action


def play_game(spec: GameSpec) -> GameResult:
    """Play one game (in this process) and score it from blue's side."""
    sides = sides_with_agents(spec.scenario)
    blue = list(sides)[0]
    names = {agent: spec.blue if side == blue else spec.red
             for side, agents in sides.items() for agent in agents}
    policies = {agent: _policy(name, spec.scenario, agent) for agent, name in names.items()}
    env = _env(spec.scenario, view_options(policies.values()))
    obs, _ = env.reset(seed=spec.seed)
    flying = {}
    for k, agent in enumerate(env.possible_agents):
        name, policy = names[agent], policies[agent]
        bind_policy(policy, env, agent)
        policy.reset(policy_seed(spec.seed, k))
        flying[agent] = (name, policy)
    impulses = 0
    while env.agents:
        actions = {}
        for agent in env.agents:
            name, policy = flying[agent]
            try:
                chosen = policy.act(obs[agent], env.action_space(agent))
            except Exception as exc:
                raise RuntimeError(f"policy {name!r} flying {agent!r} failed in "
                                   f"{spec.scenario} seed {spec.seed}: {exc}") from exc
            where = f" in {spec.scenario} seed {spec.seed}"
            actions[agent] = check_action(name, agent, env, chosen, obs[agent]["action_mask"],
                                          where)
        obs, _, _, _, _ = env.step(actions)
        impulses += 1
    return _score(spec, env, blue, impulses)


_FLIP = {"win": "loss", "loss": "win", "draw": "draw"}


def _score(spec: GameSpec, env: Any, blue: str, impulses: int) -> GameResult:
    battle = env.battle
    outcome = battle.outcome or {}
    mine = outcome.get(blue, {"result": "draw", "level": "unfinished"})
    red = next((v for side, v in outcome.items() if side != blue), None)
    red_result = red["result"] if red else _FLIP[mine["result"]]
    st = battle.state
    hulls = (st.kind == UnitKind.SHIP) | (st.kind == UnitKind.FREIGHTER)
    blue_rows = st.side == battle.side_index[blue]
    taken = int(st.damage[hulls & blue_rows].sum())
    dealt = int(st.damage[hulls & ~blue_rows].sum())
    ipt = battle.scenario.impulses_per_turn
    return GameResult(spec.index, spec.match, spec.scenario, spec.blue, spec.red, spec.seed,
                      mine["result"], mine["level"], battle.end_reason or "unfinished", dealt,
                      taken, impulses, impulses / ipt, red_result)


def run_games(
    specs: Sequence[GameSpec],
    workers: int = 1,
    ray_address: str | None = None,
    progress: bool = True,
) -> list[GameResult]:
    """Play every game (inline, in ``workers`` processes, or as Ray tasks), sorted by index."""
    bar = _progress(len(specs), progress)
    try:
        if ray_address is not None:
            results = _run_ray(specs, ray_address, bar.update)
        elif workers <= 1:
            results = []
            for spec in specs:
                results.append(play_game(spec))
                bar.update(1)
        else:
            results = _run_pool(specs, workers, bar.update)
    finally:
        bar.close()
    return sorted(results, key=lambda r: r.index)


def default_workers() -> int:
    """min(2, CPUs)."""
    return max(1, min(2, os.cpu_count() or 1))


def _pool_context() -> multiprocessing.context.BaseContext:
    """Fork (cheap; children inherit policies registered at run time) unless torch is loaded:
    a child forked from a process whose torch thread pool has started hangs on its first
    forward pass, so then spawn fresh interpreters (SB3 checkpoints load there again)."""
    return multiprocessing.get_context("spawn" if "torch" in sys.modules else "fork")


def _run_pool(specs: Sequence[GameSpec], workers: int, tick: Callable[[int], Any]):
    results = []
    with ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context()) as pool:
        futures = [pool.submit(play_game, s) for s in specs]
        for future in as_completed(futures):
            results.append(future.result())
            tick(1)
    return results


def require_ray() -> Any:
    """The ``ray`` module, or a clear error if Ray is not installed (it is optional)."""
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError("--ray needs Ray: pip install 'ray>=2.40' (or the rllib extra)") from exc
    return ray


def _run_ray(specs: Sequence[GameSpec], address: str, tick: Callable[[int], Any]):
    ray = require_ray()
    ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    remote = ray.remote(play_game)
    pending = [remote.remote(s) for s in specs]
    results = []
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        results += ray.get(done)
        tick(len(done))
    return results


class _NoBar:
    def update(self, n: int = 1) -> None:
        del n

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool):
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError as exc:
        raise ImportError("progress bars need tqdm: pip install -e '.[bench]' "
                          "(or pass progress=False / --no-progress)") from exc
    return tqdm(total=total, desc="games", unit="game", leave=False)


# ---------------------------------------------------------------------- statistics


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n (default 95%)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class MatchStats:
    """Per-match summary from blue's side."""

    scenario: str
    blue: str
    red: str
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float
    win_ci: tuple[float, float]
    draw_rate: float
    draw_ci: tuple[float, float]
    loss_rate: float
    loss_ci: tuple[float, float]
    damage_dealt: float  # means per game
    damage_taken: float
    impulses: float
    turns: float
    red_wins: int = 0  # games the red side won by its own result (see GameResult.red_result)
    red_win_rate: float = 0.0
    red_win_ci: tuple[float, float] = (0.0, 0.0)


def match_stats(matches: Sequence[Match], results: Iterable[GameResult]) -> list[MatchStats]:
    """Win/draw/loss with 95% Wilson intervals, mean damage and length, per match."""
    by_match: dict[int, list[GameResult]] = {m: [] for m in range(len(matches))}
    for r in results:
        by_match[r.match].append(r)
    out = []
    for m, match in enumerate(matches):
        games = by_match[m]
        n = len(games)
        counts = {k: sum(g.result == k for g in games) for k in ("win", "draw", "loss")}
        red_wins = sum(g.red_outcome == "win" for g in games)

        def mean(values: list[float]) -> float:
            return float(np.mean(values)) if values else 0.0

        out.append(MatchStats(
            match.scenario, match.blue, match.red, n, counts["win"], counts["draw"],
            counts["loss"],
            counts["win"] / n if n else 0.0, wilson(counts["win"], n),
            counts["draw"] / n if n else 0.0, wilson(counts["draw"], n),
            counts["loss"] / n if n else 0.0, wilson(counts["loss"], n),
            mean([g.damage_dealt for g in games]), mean([g.damage_taken for g in games]),
            mean([g.impulses for g in games]), mean([g.turns for g in games]),
            red_wins, red_wins / n if n else 0.0, wilson(red_wins, n),
        ))
    return out


@dataclass(frozen=True)
class Rating:
    """An openskill (Plackett-Luce) rating."""

    player: str
    mu: float
    sigma: float
    ordinal: float  # mu - 3 sigma
    games: int


def rate(results: Iterable[GameResult]) -> list[Rating]:
    """Ratings from every game in index order (openskill Plackett-Luce); a policy that flies
    both sides of a match is rated as two players, "name (blue)" and "name (red)"."""
    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:
        raise ImportError("ratings need openskill: pip install -e '.[bench]'") from exc

    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    played: dict[str, int] = {}
    for r in sorted(results, key=lambda g: g.index):
        blue, red = r.blue, r.red
        if blue == red:
            blue, red = f"{blue} (blue)", f"{red} (red)"
        for p in (blue, red):
            ratings.setdefault(p, model.rating(name=p))
            played[p] = played.get(p, 0) + 1
        ranks = {"win": [0, 1], "loss": [1, 0], "draw": [0, 0]}[r.result]
        [[ratings[blue]], [ratings[red]]] = model.rate([[ratings[blue]], [ratings[red]]],
                                                       ranks=ranks)
    out = [Rating(p, float(x.mu), float(x.sigma), float(x.ordinal()), played[p])
           for p, x in ratings.items()]
    return sorted(out, key=lambda x: (-x.ordinal, x.player))


def as_dict(item: Any) -> dict[str, Any]:
    """A dataclass as a JSON-ready dict."""
    return asdict(item)
