"""Why a seat loses: how often a ship's weapons could bear, and from what range.

``python -m training.seat_probe DUEL BLUE RED --seat AGENT --games N`` plays N games (seeds
0..N-1) of a duel on the reference engine, the captains named as in ``sfb bench``, and prints
for the ``--seat`` ship, over the impulses of turn 2 on (the Chief Engineer readies photons
from turn 2, CTH-DATA §4.3): the range to the enemy ship, how often the enemy is in its FA arc
(D2.1), and for each weapon type the decisions with a fire value open (its mask) and the shots
taken; then the damage each ship scored on ships and on drones and the results. It answered
session 17's question of why no captain wins the Federation seats (docs/training.md).
"""

from __future__ import annotations

import argparse
import collections
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

import sfb_env
from agents.base import bind_policy, load_policy
from agents.bench import policy_seed
from sfb_env import hexmap

FAR = 9  # ranges from here on are counted together


@dataclass
class SeatReport:
    """What ``probe`` counted for one seat."""

    impulses: int = 0
    ranges: collections.Counter = field(default_factory=collections.Counter)
    in_fa: int = 0
    open_by_type: collections.Counter = field(default_factory=collections.Counter)
    shots_by_type: collections.Counter = field(default_factory=collections.Counter)
    damage: collections.Counter = field(default_factory=collections.Counter)
    results: collections.Counter = field(default_factory=collections.Counter)

    def lines(self) -> list[str]:
        n = max(self.impulses, 1)
        ranges = ", ".join(f"{r}{'+' if r == FAR else ''}: {c / n:.0%}"
                           for r, c in sorted(self.ranges.items()))
        out = [f"impulses (turn 2 on): {self.impulses}; range {ranges}; "
               f"enemy ship in the FA arc {self.in_fa / n:.0%}"]
        for kind in sorted(self.open_by_type):
            out.append(f"{kind}: fire open on {self.open_by_type[kind]} decisions, "
                       f"{self.shots_by_type[kind]} shots")
        for (unit, target), points in sorted(self.damage.items()):
            out.append(f"{unit} scored {points} on {target}")
        out.append("results: " + ", ".join(f"{k} {v}" for k, v in self.results.most_common()))
        return out


def probe(duel: str, blue: str, red: str, seat: str, games: int) -> SeatReport:
    """Play ``games`` games of ``duel`` (blue: its first agent) and count for ``seat``."""
    report = SeatReport()
    env = sfb_env.parallel_env(duel, backend="reference")
    if len(env.possible_agents) != 2:
        raise ValueError(f"{duel}: a duel of two agents is needed, it has "
                         f"{env.possible_agents}")
    if seat not in env.possible_agents:
        raise ValueError(f"--seat {seat!r}: {duel} has agents {env.possible_agents}")
    pilots = {}
    for agent, name in zip(env.possible_agents, (blue, red), strict=True):
        pilots[agent] = load_policy(name)
        bind_policy(pilots[agent], env, agent)
    enemy = next(a for a in env.possible_agents if a != seat)
    comps = env.action_components(seat)
    starts = np.concatenate([[0], np.cumsum(env.action_space(seat).nvec)])
    fire = [(i, c["weapon_type"]) for i, c in enumerate(comps) if c["kind"] == "fire"]
    side = _side(env, seat)
    for seed in range(games):
        obs, _ = env.reset(seed=seed)
        for k, agent in enumerate(env.possible_agents):  # (as ``sfb bench``'s games)
            pilots[agent].reset(policy_seed(seed, k))
        while env.agents:
            st = env.battle.state
            actions = {a: pilots[a].act(obs[a], env.action_space(a)) for a in env.agents}
            if seat in env.agents and enemy in env.agents and st.turn >= 2:
                _count(report, env, seat, enemy, obs[seat]["action_mask"], actions[seat],
                       fire, starts)
            obs, *_ = env.step(actions)
        for e in env.battle.events:
            if e.kind == "Fired" and e.damage:
                target = "drones" if "drone" in e.target else "ships"
                report.damage[(e.unit.split(".")[0], target)] += e.damage
            elif e.kind == "BattleEnded":
                report.results[f"{seat} {e.outcome[side]['result']}"] += 1
    return report


def _side(env, agent: str) -> str:
    return next(u.side for u in env.scenario.units if u.id == agent)


def _count(report, env, seat, enemy, mask, action, fire, starts) -> None:
    st = env.battle.state
    i, j = env.battle.unit_index[seat], env.battle.unit_index[enemy]
    report.impulses += 1
    report.ranges[min(int(hexmap.distance_np(st.x[i], st.z[i], st.x[j], st.z[j])), FAR)] += 1
    bits = hexmap.arc_bits_np(st.x[i:i + 1], st.z[i:i + 1], st.facing[i:i + 1],
                              st.x[j:j + 1], st.z[j:j + 1])
    report.in_fa += bool(int(bits[0]) & hexmap.arc_bits("FA"))
    for k, kind in fire:
        report.open_by_type[kind] += bool(mask[starts[k] + 1:starts[k + 1]].any())
        report.shots_by_type[kind] += int(action[k] > 0)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("duel")
    p.add_argument("blue", help="captain of the duel's first agent (as in sfb bench)")
    p.add_argument("red", help="captain of the second agent")
    p.add_argument("--seat", required=True, help="the agent to report on")
    p.add_argument("--games", type=int, default=20)
    args = p.parse_args(argv)
    for line in probe(args.duel, args.blue, args.red, args.seat, args.games).lines():
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
