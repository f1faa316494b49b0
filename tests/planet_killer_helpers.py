"""Scenario-11 test rigs: cth-11 with its units moved (engine.planet_killer, labs, probes)."""

from __future__ import annotations

from typing import Any

from sfb_env.data import load_data_file
from sfb_env.engine import Battle, Orders, make_battle
from sfb_env.engine.scenario import SCENARIO_DIR

SHIP, MONSTER, PLANET = "constellation", "planet-killer", "planet"


def cth_11(ship: str = "2503", facing: str = "F", monster: str = "0101",
           planet: str = "2514", speed: int = 31, rules: dict[str, Any] | None = None,
           extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The cth-11 document with the ship, monster and planet placed as given."""
    doc = dict(load_data_file(SCENARIO_DIR / "cth-11.yaml"))
    doc["rules"] = {**doc["rules"], **(rules or {})}
    units = [dict(u) for u in doc["units"]]
    units[0].update(hex=ship, facing=facing, speed=speed)
    units[1].update(hex=monster)
    units[2].update(hex=planet)
    doc["units"] = units + list(extra or [])
    return doc


def pk_battle(seed: int = 0, **kw: Any) -> Battle:
    return make_battle(cth_11(**kw), seed=seed, max_turns=60)


def hold(b: Battle, **extra: Any) -> None:
    """One step: every agent stays at speed 0 (no maneuver), with ``extra`` order fields for
    the first agent."""
    orders = {}
    for u in b.agent_units():
        o = Orders(**extra) if u == b.agent_units()[0] else Orders()
        if b.speed_choice_open():
            o.speed = 0
        orders[u] = o
    b.step(orders)


def hold_to(b: Battle, turn: int, impulse: int) -> None:
    while (b.state.turn, b.state.impulse) != (turn, impulse):
        assert not b.done, (b.end_reason, turn, impulse)
        hold(b)


class FixedDie:
    """A stand-in for ``battle.rng`` that always rolls ``die`` (a tie pick: the last index at
    most ``die``)."""

    def __init__(self, die: int) -> None:
        self.die = die

    def integers(self, low, high=None):
        return self.die if high is not None else min(self.die, low - 1)
