"""Fuzzing with captains that fight (issue 13), and the coverage it reaches.

Plain random masked play (``engine_helpers.masked_actions``) announces disengagement within a
few impulses where the scenario offers it (SCENARIOS #5) and flies off the map elsewhere, so it
explores turn 1 only. The fuzz captains here stay in the fight:

* ``fighter``: every agent flies ``random-fighter`` (random masked orders, never announcing
  disengagement, keeping to the map);
* ``doctrine``: every agent flies its doctrine captain (the scenario's own mission captain in
  cth-08, cth-09 and cth-11) with each component but ``disengage`` replaced, with probability
  ``P_RANDOM``, by a random value its mask allows;
* ``mixed``: one side of each kind (which side takes which alternates with the seed).

A game is reproducible from its seed and style alone (no generator shared between games), so
the coverage of seeds ``range(n)`` contains that of any ``range(m)``, ``m <= n``.

``Coverage`` collects what the games reached: steps, the highest turn, the weapon kinds fired
(``Fired.weapon_type``; launches by the kind of unit launched: ``drone``, ``plasma``,
``fighter``, ``shuttle``) and the event kinds of the log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

STYLES = ("fighter", "doctrine", "mixed")
P_RANDOM = 0.25  # chance that a doctrine captain's component is replaced by a random one
MISSION_CAPTAINS = {  # scenario -> agent -> its mission captain (agents/scenario_captains.py)
    "cth-08": {"queen-of-diamonds": "pirate", "defender": "defender"},
    "cth-09": {"rescuer": "rescuer", "opponent": "rescue-opponent"},
    "cth-11": {"constellation": "researcher"},
}


@dataclass
class Coverage:
    """What fuzzing reached over one or more games."""

    games: int = 0
    steps: int = 0
    turns: int = 0  # the highest turn any game reached
    weapons: set[str] = field(default_factory=set)
    events: set[str] = field(default_factory=set)

    def add(self, battle: Any, steps: int) -> None:
        """Count one finished (or cut) game of ``steps`` steps on ``battle``."""
        from sfb_env.engine.types import UnitKind

        self.games += 1
        self.steps += steps
        self.turns = max(self.turns, int(battle.state.turn))
        for e in battle.events:
            self.events.add(e.kind)
            if e.kind == "Fired":
                self.weapons.add(e.weapon_type)
            elif e.kind == "Launched":
                row = battle.unit_index[e.drone]
                self.weapons.add(UnitKind(int(battle.state.kind[row])).name.lower())

    def merge(self, other: Coverage) -> Coverage:
        self.games += other.games
        self.steps += other.steps
        self.turns = max(self.turns, other.turns)
        self.weapons |= other.weapons
        self.events |= other.events
        return self


class _DoctrineWithRandom:
    """A scripted captain with random components: never ``disengage``, and a random
    ``maneuver`` only among those ``random-fighter`` would fly (keeping to the map)."""

    def __init__(self, captain: Any, kinds: list[str], rng: np.random.Generator) -> None:
        self.captain, self.kinds, self.rng = captain, kinds, rng

    def act(self, obs: Mapping[str, Any], space: Any) -> np.ndarray:
        action = np.array(self.captain.act(obs, space), dtype=np.int64)
        mask = np.asarray(obs["action_mask"]).astype(bool)
        bounds = np.concatenate([[0], np.cumsum(space.nvec)])
        for i, kind in enumerate(self.kinds):
            if kind != "disengage" and self.rng.random() < P_RANDOM:
                allowed = np.flatnonzero(mask[bounds[i]:bounds[i + 1]])
                if kind == "maneuver":
                    allowed = _on_map(obs, allowed)
                if len(allowed):
                    action[i] = self.rng.choice(allowed)
        return action


def _on_map(obs: Mapping[str, Any], allowed: np.ndarray) -> np.ndarray:
    """The open maneuvers ``random-fighter`` draws from (those that keep the ship on the map
    with room ahead; all where none does)."""
    from agents.observation_view import own_ship
    from agents.random_fighter import ROOM, room_after

    own = own_ship(obs["observation"])
    room = np.array([room_after(own.edges, own.column, own.row, own.facing, int(m))
                     for m in allowed])
    if len(room) and room.max() >= 0:
        return allowed[room >= min(ROOM, room.max())]
    return allowed


def captains(env: Any, scenario: str, seed: int, style: str) -> dict[str, Any]:
    """A fuzz captain per possible agent of ``env`` (already reset) for ``style``."""
    import agents

    out = {}
    for k, agent in enumerate(env.possible_agents):
        kind = style if style != "mixed" else ("doctrine", "fighter")[(k + seed) % 2]
        if kind == "fighter":
            policy = agents.make_policy("random-fighter")
            agents.bind_policy(policy, env, agent)
            policy.reset(seed * 100 + k)
        else:
            name = MISSION_CAPTAINS.get(scenario, {}).get(agent, "doctrine")
            captain = agents.make_policy(name)
            agents.bind_policy(captain, env, agent)
            captain.reset(seed)
            kinds = [str(c["kind"]) for c in env.action_components(agent)]
            policy = _DoctrineWithRandom(captain, kinds, np.random.default_rng([seed, k, 7]))
        out[agent] = policy
    return out


def fuzz_game(env: Any, scenario: str, seed: int, style: str = "fighter",
              max_steps: int | None = None,
              check: Callable[[Any, Mapping[str, Any]], None] | None = None,
              mirror: Any = None) -> Coverage:
    """One game of ``style`` fuzz captains on ``env`` (built with ``illegal_action="raise"``
    so that any refused order raises), reset with ``seed``, to its end or ``max_steps``;
    ``check(env, obs)`` runs at every decision point. ``mirror``: a
    ``sfb_env.compiled.parity.Mirror`` of ``env``, the compiled core played alike and compared
    after the reset and every step."""
    obs, _ = env.reset(seed=seed)
    if mirror is not None:
        mirror.start(seed, obs)
    pilots = captains(env, scenario, seed, style)
    steps = 0
    while env.agents and (max_steps is None or steps < max_steps):
        if check is not None:
            check(env, obs)
        actions = {a: pilots[a].act(obs[a], env.action_space(a)) for a in env.agents}
        before = len(env.battle.events)
        obs, rewards, terminations, truncations, _ = env.step(actions)
        if mirror is not None:
            mirror.follow(actions, obs, rewards, terminations, truncations, before)
        steps += 1
    cov = Coverage()
    cov.add(env.battle, steps)
    return cov


def fuzz_games(scenario: Any, seeds: Iterable[int], styles: Iterable[str] = STYLES,
               to_the_end: bool = False, max_steps: int | None = None,
               **options: Any) -> Coverage:
    """Fuzz ``scenario`` (a name or a scenario dict) once per seed, the styles taken in turn
    (seed ``s`` plays ``styles[s % len(styles)]``); every game must run without a refused
    order and, with ``to_the_end``, end with the battle done and an outcome."""
    import sfb_env

    styles = tuple(styles)
    name = scenario if isinstance(scenario, str) else str(scenario.get("name", ""))
    env = sfb_env.parallel_env(scenario, illegal_action="raise", **options)
    cov = Coverage()
    for seed in seeds:
        game = fuzz_game(env, name, seed, styles[seed % len(styles)], max_steps)
        assert game.steps > 0, (name, seed)
        if to_the_end:
            assert env.battle.done and env.battle.outcome, (name, seed)
        cov.merge(game)
    return cov


def fuzz_steps(scenario: Any, n: int, per_game: int, first_seed: int = 0,
               env: Any = None, after_game: Callable[[Any], None] | None = None,
               lockstep: bool = False, **options: Any) -> Coverage:
    """``n`` fuzz steps of ``scenario`` over as many games as it takes (seeds ``first_seed``,
    ``first_seed + 1``, ..., the styles in turn), each game cut at ``per_game`` steps, with
    ``illegal_action="raise"`` and the engine validating every order the masks allowed
    (``validate_in_engine``): no allowed action may be refused. ``env``: one built already
    (the ``options`` then unused); ``after_game(battle)`` runs after each game. ``lockstep``:
    the compiled core plays every game too, compared step by step with the reference env
    (``parity.Mirror``; a reference ``env``)."""
    import sfb_env

    name = scenario if isinstance(scenario, str) else str(scenario.get("name", ""))
    if env is None:
        env = sfb_env.parallel_env(scenario, illegal_action="raise", **options)
    env.validate_in_engine = True  # the env skips it (masks checked); here it must agree
    mirror = None
    if lockstep:
        from sfb_env.compiled.parity import Mirror

        mirror = Mirror(env)
    cov, seed = Coverage(), first_seed
    while cov.steps < n:
        game = fuzz_game(env, name, seed, STYLES[seed % len(STYLES)],
                         min(per_game, n - cov.steps), mirror=mirror)
        assert game.steps > 0, (name, seed)
        cov.merge(game)
        if after_game is not None:
            after_game(env.battle)
        seed += 1
    return cov


@dataclass(frozen=True)
class Expect:
    """The least coverage a fuzz run must reach."""

    turns: int
    weapons: frozenset[str] = frozenset()
    events: frozenset[str] = frozenset()


def expect(turns: int, weapons: str = "", events: str = "") -> Expect:
    """``Expect`` from space-separated names."""
    return Expect(turns, frozenset(weapons.split()), frozenset(events.split()))


def assert_covers(name: str, cov: Coverage, want: Expect) -> None:
    """``cov`` reaches ``want``: the turn, every weapon kind and every event kind."""
    assert cov.turns >= want.turns, (name, "turns", cov.turns, want.turns)
    assert want.weapons <= cov.weapons, (name, "weapons not fired", sorted(want.weapons
                                                                         - cov.weapons))
    assert want.events <= cov.events, (name, "events not seen", sorted(want.events
                                                                     - cov.events))


COMMON_EVENTS = frozenset({"Moved", "SpeedSet", "TurnEnded", "BattleEnded", "EnergyAllocated",
                           "WeaponArmed"})  # left out of the table's "events" column


def markdown_table(rows: Mapping[str, Coverage]) -> str:
    """A markdown table: scenario, games, steps, turns reached, weapon kinds, events seen (all
    but the ubiquitous ``COMMON_EVENTS``)."""
    lines = ["| scenario | games | steps | turns | weapons fired | events seen |",
             "|---|---:|---:|---:|---|---|"]
    for name, c in rows.items():
        events = sorted(c.events - COMMON_EVENTS)
        lines.append(f"| {name} | {c.games} | {c.steps} | {c.turns} | "
                     f"{' '.join(sorted(c.weapons)) or '-'} | {' '.join(events) or '-'} |")
    return "\n".join(lines)


def assert_fights(name: str, cov: Coverage, turns: int = 2) -> None:
    """A fuzz run fought: it reached ``turns`` (past turn 1, where random play stopped) and
    fired or launched something. The per-scenario floors are ``test_fuzz.COVERAGE``."""
    assert cov.turns >= turns, (name, "turns", cov.turns, turns)
    assert cov.weapons, (name, "nothing fired or launched")
