"""Rewards: ``shaped`` (internal damage dealt minus taken, scaled, plus the end result),
``points`` (damage points, shield and internal, scored on enemy ships minus those the agent's
ship took, scaled, plus the end result: the measure a duel is decided on at its turn limit) or
``sparse`` (the end result only). A callable ``reward(env, agent, new_events) -> float`` may be
passed instead.

End result: +1 win, -1 loss, 0 draw, from the scenario's victory conditions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sfb_env.engine.events import Damaged, Event
from sfb_env.engine.types import UnitKind

DAMAGE_SCALE = 0.05  # one internal point = 0.05: a destroyed cadet ship is worth ~2 wins
RESULT_VALUE = {"win": 1.0, "loss": -1.0, "draw": 0.0}

RewardFn = Callable[[Any, str, Sequence[Event]], float]


def _balance(env: Any, agent: str, events: Sequence[Event], ship_points: bool) -> float:
    """Points ``events`` scored on enemy units minus those the agent's ship took: internal
    points on any unit, or (``ship_points``) shield and internal points on ships."""
    battle = env.battle
    st = battle.state
    me = battle.unit_index[agent]
    dealt = taken = 0
    for e in events:
        if not isinstance(e, Damaged):
            continue
        u = battle.unit_index[e.unit]
        points = e.internal
        if ship_points:
            if st.kind[u] != UnitKind.SHIP:
                continue
            points += e.to_shield
        if not points:
            continue
        if st.side[u] != st.side[me]:
            dealt += points
        elif u == me:
            taken += points
    return float(dealt - taken)


def damage_balance(env: Any, agent: str, events: Sequence[Event]) -> float:
    """Internal points scored on enemy units minus internal points taken by the agent."""
    return _balance(env, agent, events, ship_points=False)


def points_balance(env: Any, agent: str, events: Sequence[Event]) -> float:
    """Damage points (shield and internal, ``Damaged``'s ``to_shield + internal``) scored on
    enemy ships minus those taken by the agent's ship: this step's change in the margin a duel
    is decided on at its turn limit (SCENARIOS #5, PROPOSAL [P-018]). Drones and other units
    count for nothing."""
    return _balance(env, agent, events, ship_points=True)


def end_result(env: Any, agent: str) -> float:
    """+1/-1/0 once the battle is over, else 0."""
    battle = env.battle
    if not battle.done or battle.outcome is None:
        return 0.0
    side = battle.scenario.sides[battle.state.side[battle.unit_index[agent]]]
    return RESULT_VALUE[battle.outcome[side]["result"]]


def shaped(env: Any, agent: str, events: Sequence[Event]) -> float:
    """Damage balance scaled by ``DAMAGE_SCALE`` plus the end result."""
    return DAMAGE_SCALE * damage_balance(env, agent, events) + end_result(env, agent)


def points(env: Any, agent: str, events: Sequence[Event]) -> float:
    """Damage-point balance scaled by ``DAMAGE_SCALE`` plus the end result."""
    return DAMAGE_SCALE * points_balance(env, agent, events) + end_result(env, agent)


def sparse(env: Any, agent: str, events: Sequence[Event]) -> float:
    """The end result only."""
    return end_result(env, agent)


REWARDS: dict[str, RewardFn] = {"shaped": shaped, "sparse": sparse, "points": points}
