"""Helpers for the engine tests: hand-built dict scenarios, scripted dice, orders by unit id,
and a cheap random driver that only picks legal options (through the engine's own predicates)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import Battle, Maneuver, Orders, WeaponType, make_battle
from sfb_env.engine.direct_fire import fire_mask
from sfb_env.engine.events import Event
from sfb_env.engine.types import PLASMA_LAUNCHERS

MANEUVERS = {
    "S": Maneuver.STRAIGHT,
    "L": Maneuver.TURN_LEFT,
    "R": Maneuver.TURN_RIGHT,
    "-": Maneuver.NONE,
    "<": Maneuver.SIDESLIP_LEFT,  # (C4) with rules.sideslip
    ">": Maneuver.SIDESLIP_RIGHT,
    "TL": Maneuver.TACTICAL_LEFT,  # (C5) with rules.tactical_maneuvers
    "TR": Maneuver.TACTICAL_RIGHT,
}


def unit(
    uid: str,
    cls: str,
    side: str,
    hex_: str,
    facing: str,
    speed: int = 0,
    controller: str = "agent",
    target: str | None = None,
) -> dict[str, Any]:
    """One unit entry of a dict scenario."""
    out: dict[str, Any] = {
        "id": uid, "class": cls, "side": side, "hex": hex_, "facing": facing,
        "speed": speed, "controller": controller,
    }
    if target is not None:
        out["target"] = target
    return out


def scenario(
    units: Iterable[Mapping[str, Any]],
    *,
    map_: str = "A+B",
    rules: Mapping[str, Any] | None = None,
    victory: Mapping[str, Any] | None = None,
    sides: tuple[str, ...] = ("blue", "red"),
    turn_limit: int | None = 10,
    robots: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A dict scenario; by default a sandbox (no objective) of 8 impulses on the A+B map."""
    doc: dict[str, Any] = {
        "name": "test",
        "impulses_per_turn": 8,
        "map": map_,
        "turn_limit": turn_limit,
        "rules": dict(rules or {}),
        "sides": list(sides),
        "units": [dict(u) for u in units],
        "victory": dict(victory or {"kind": "sandbox"}),
    }
    if robots is not None:
        doc["robots"] = dict(robots)
    return doc


def battle(units: Iterable[Mapping[str, Any]], seed: int = 0, **kw: Any) -> Battle:
    """A battle of a sandbox dict scenario (see ``scenario``)."""
    return make_battle(scenario(units, **kw), seed=seed)


class Dice:
    """A stand-in for ``battle.rng`` whose ``integers`` returns scripted dice in order."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)
        self.calls: list[tuple[int, int]] = []

    def integers(self, low: int, high: int | None = None, size: Any = None) -> int:
        assert size is None, "the scripted dice give one value per call"
        if not self.values:
            raise AssertionError(f"no scripted die left for integers({low}, {high})")
        value = self.values.pop(0)
        lo, hi = (0, low) if high is None else (low, high)
        assert lo <= value < hi, f"scripted die {value} outside [{lo}, {hi})"
        self.calls.append((lo, hi))
        return value


def row(b: Battle, uid: str) -> int:
    """Unit row of a unit id."""
    return b.unit_index[uid]


def weapon(b: Battle, uid: str, mount: str) -> int:
    """Weapon row of ``<unit id>.<mount id>``."""
    return b.weapon_ids.index(f"{uid}.{mount}")


def orders(
    b: Battle,
    maneuver: str | None = None,
    fire: Mapping[str, str] | None = None,
    launch: Mapping[str, str] | None = None,
    speed: int | None = None,
    unit_id: str | None = None,
    tactical: bool = False,
    gatling: Mapping[str, Mapping[int, str]] | None = None,
) -> Orders:
    """Orders with weapons named by mount id (``PH1-1``) and targets by unit id;
    ``gatling``: a phaser-G's shots 2..4 (``{"PHG-4": {2: "k"}}``, E2.151)."""
    out = Orders(maneuver=MANEUVERS[maneuver] if maneuver else Maneuver.NONE, speed=speed,
                 tactical=tactical)
    for table, given in ((out.fire, fire), (out.launch, launch)):
        for mount, target in (given or {}).items():
            owner, _, m = mount.rpartition(".")
            table[weapon(b, owner or unit_id, m)] = row(b, target)
    for mount, shots in (gatling or {}).items():
        owner, _, m = mount.rpartition(".")
        out.gatling[weapon(b, owner or unit_id, m)] = {k: row(b, t) for k, t in shots.items()}
    return out


def step(b: Battle, /, **by_id: Any) -> None:
    """One ``battle.step`` with orders given per unit id: ``step(b, fed="R")`` or
    ``step(b, fed=dict(maneuver="S", fire={"PH1-1": "drone-B"}))``."""
    given = {}
    for uid, spec in by_id.items():
        spec = {"maneuver": spec} if isinstance(spec, str) or spec is None else dict(spec)
        given[row(b, uid)] = orders(b, unit_id=uid, **spec)
    b.step(given)


def moves_straight(b: Battle, uid: str) -> str:
    """The maneuver string that keeps a unit going: "S" if it moves next, else "-"."""
    return "-" if Maneuver.STRAIGHT in b.maneuver_blockers(row(b, uid)) else "S"


def run_to(b: Battle, turn: int, impulse: int) -> None:
    """Step with default orders (every agent straight when it moves) to a decision point."""
    while (b.state.turn, b.state.impulse) != (turn, impulse):
        assert not b.done, f"the battle ended before turn {turn} impulse {impulse}"
        b.step({u: Orders(maneuver=_default(b, u)) for u in b.agent_units()})


def _default(b: Battle, u: int) -> Maneuver:
    return Maneuver.NONE if Maneuver.STRAIGHT in b.maneuver_blockers(u) else Maneuver.STRAIGHT


def of(b: Battle, kind: str, **fields: Any) -> list[Event]:
    """Events of a kind (class name) whose fields equal ``fields``."""
    return [
        e for e in b.events
        if e.kind == kind and all(getattr(e, k) == v for k, v in fields.items())
    ]


def hex_of(b: Battle, uid: str) -> str:
    return b.label(row(b, uid))


def facing_of(b: Battle, uid: str) -> str:
    return hexmap.DIRECTION_LETTERS[int(b.state.facing[row(b, uid)])]


# ---------------------------------------------------------------------- random legal driver


def _stays_on_map(b: Battle, u: int, m: Maneuver) -> bool:
    if m in (Maneuver.NONE, Maneuver.TACTICAL_LEFT, Maneuver.TACTICAL_RIGHT):
        return True
    st = b.state
    turn = {Maneuver.TURN_LEFT: -1, Maneuver.TURN_RIGHT: 1,
            Maneuver.SIDESLIP_LEFT: -1, Maneuver.SIDESLIP_RIGHT: 1}.get(m, 0)
    f = (int(st.facing[u]) + turn) % 6
    nx, nz = hexmap.neighbor_np(st.x[u], st.z[u], f)
    return bool(b.scenario.map_area.contains_axial_np(nx, nz, b.scenario.parity))


_LAUNCHERS = frozenset(int(k) for k in (WeaponType.DRONE_RACK, *PLASMA_LAUNCHERS))


def random_orders(b: Battle, g: np.random.Generator) -> dict[int, Orders]:
    """Random legal orders for every commanded unit, chosen with the engine's predicates.

    Mostly keeps the ship on the map (0.5% of the time any legal maneuver, so disengagement
    happens too); fires each ready weapon with probability 0.4 and launches with 0.3.
    """
    out = {}
    for u in b.agent_units():
        speed = None
        if b.speed_choice_open():
            speeds = list(b.speed_range(u))
            speed = int(speeds[g.integers(len(speeds))])
        blocked = b.maneuver_blockers(u) if speed is None else b.maneuver_blockers(u, speed)
        legal = [m for m in b.maneuvers if m not in blocked]  # the scenario's values
        safe = [m for m in legal if _stays_on_map(b, u, m)]
        pool = safe if safe and g.random() > 0.005 else legal
        order = Orders(maneuver=pool[int(g.integers(len(pool)))], speed=speed)
        rows = [int(w) for w in b.weapons_of(u)]
        direct = [w for w in rows if int(b.state.w_type[w]) not in _LAUNCHERS]
        # the targets fire_blockers leaves open, for all the unit's direct-fire weapons at once
        # (fire_mask: the same predicate without the words)
        open_at = (dict(zip(direct, fire_mask(b, np.array(direct, np.int64)), strict=True))
                   if direct else {})
        for w in rows:
            if w in open_at:
                table, p = order.fire, 0.4
                targets = np.flatnonzero(open_at[w]).tolist()
            else:
                table, p = order.launch, 0.3
                targets = [t for t, why in enumerate(b.launch_blockers(w)) if why is None]
            if targets and g.random() < p:
                table[w] = targets[int(g.integers(len(targets)))]
        out[u] = order
    return out


def play_random(scenario: str | Mapping[str, Any] | Battle, seed: int,
                max_turns: int | None = None) -> Battle:
    """Play a scenario to its end (or ``max_turns``) with random legal orders (generator seeded
    per game).

    Given a ``Battle``, it is reset with ``seed`` and reused (no reloading of the scenario)."""
    if isinstance(scenario, Battle):
        b = scenario
        b.reset(seed)
    else:
        b = make_battle(scenario, seed=seed, max_turns=max_turns)
    g = np.random.default_rng([seed, 12345])
    while not b.done:
        b.step(random_orders(b, g))
    return b


def random_masked_game(env, seed: int, rng: np.random.Generator, check=None) -> int:
    """One game of random masked play (``illegal_action="raise"``); ``check(env, obs)`` runs at
    every decision point. Returns the number of steps."""
    obs, _ = env.reset(seed=seed)
    steps = 0
    while env.agents:
        if check is not None:
            check(env, obs)
        obs, *_ = env.step(masked_actions(env, obs, rng))  # raises if the engine refuses one
        steps += 1
    return steps


def random_masked_games(scenario, seeds, rng_seed: int = 0, to_the_end: bool = False,
                        **options) -> None:
    """Random masked play of ``scenario`` (``illegal_action="raise"``), one game per seed in
    ``seeds``, every order drawn from one generator seeded ``rng_seed``; each game must run,
    and with ``to_the_end`` end with the battle done and an outcome."""
    import sfb_env

    env = sfb_env.parallel_env(scenario, illegal_action="raise", **options)
    rng = np.random.default_rng(rng_seed)
    for seed in seeds:
        assert random_masked_game(env, seed, rng) > 0, (scenario, seed)
        if to_the_end:
            assert env.battle.done and env.battle.outcome, (scenario, seed)


def masked_actions(env, obs: Mapping[str, Any], rng: np.random.Generator) -> dict:
    """One random action per live agent, drawn inside its action mask (each space seeded from
    ``rng``, so a run is reproducible from the generator's seed)."""
    actions = {}
    for a in env.agents:
        space = env.action_space(a)
        space.seed(int(rng.integers(1 << 31)))
        actions[a] = space.sample(mask=obs[a]["action_mask"])
    return actions


def advance_masked(env, obs: Mapping[str, Any], rng: np.random.Generator, n: int):
    """``n`` steps of random masked play from ``obs``; the last observations, or ``None`` once
    the game has ended."""
    for _ in range(n):
        if not env.agents:
            return None
        obs, *_ = env.step(masked_actions(env, obs, rng))
    return obs if env.agents else None


def component_values_agree(env, agent: str, obs: Mapping[str, Any], i: int,
                           values: Iterable[int]) -> int:
    """Masks and engine both ways for ``values`` of action component ``i`` of ``agent``, each
    alone (the rest no-op): an allowed value has no mask reason and ``Battle.validate`` accepts
    it; a masked one is refused with the mask's rule, except one the engine cannot judge (an
    empty "target slot"). Returns how many of ``values`` were allowed."""
    import pytest

    from sfb_env.engine import IllegalOrderError

    layout = env._layouts[agent]
    name = layout.component_names()[i]
    part = env.action_space(agent).split_mask(obs[agent]["action_mask"])[i]
    reasons = env.mask_reasons(agent)[name]
    allowed = 0
    for v in values:
        action = layout.noop(env.battle)
        action[i] = v
        orders = layout.to_orders(env.battle, action, env._slots[agent])
        if part[v]:
            assert v not in reasons, (name, v, reasons[v])
            env.battle.validate({layout.unit: orders})  # allowed -> accepted
            allowed += 1
        elif "target slot" not in reasons[v]:
            with pytest.raises(IllegalOrderError) as err:
                env.battle.validate({layout.unit: orders})
            assert err.value.rule == reasons[v], (name, v)
    return allowed


# ----------------------------------------------------------------------------- standard form


def standard_battle(units: Iterable[Mapping[str, Any]], **rules: Any) -> Battle:
    """A 32-impulse battle on the standard Energy Allocation Form and the standard DAC."""
    doc = scenario(units, rules={"energy": "standard", "damage": "standard_dac", **rules})
    doc["impulses_per_turn"] = 32
    return make_battle(doc, seed=0)


def standard_duel(**rules: Any) -> Battle:
    """Federation CA (agent, 1010-A) facing a motionless Klingon D7 (idle) 3 hexes ahead."""
    return standard_battle([unit("fed", "fed-ca", "blue", "1010", "A", 0),
                            unit("d7", "klingon-d7", "red", "1007", "D", 0, controller="idle")],
                           **rules)


def bare_orders(b: Battle, u: int, **fields: Any) -> Orders:
    """Energy orders with nothing armed, nothing into the capacitor, no recharge."""
    from sfb_env.engine import energy

    base = dict(speed=0, capacitor=0, recharge=0,
                arm={int(w): 0 for w in energy.heavy_rows(b, u)})
    base.update(fields)
    return Orders(**base)
