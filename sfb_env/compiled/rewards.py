"""Rewards, compiled: ``env.reward`` (``shaped`` and ``sparse``) read from the event rows.

``shaped`` = ``DAMAGE_SCALE`` x (internal points this step's ``Damaged`` events scored on
enemy units - those the agent's own ship took) + the end result (+1 win, -1 loss, 0 draw from
``s.outcome_code``); ``points`` = the same with the damage points (shield and internal) scored
on enemy ships and taken by the agent's ship; ``sparse`` = the end result only.
"""

from __future__ import annotations

import numba as nb

from sfb_env.compiled import event_codes
from sfb_env.compiled.ending import DRAW, LOSS, WIN
from sfb_env.engine.types import UnitKind
from sfb_env.env.reward import DAMAGE_SCALE, REWARDS

DAMAGED = event_codes.CODE["Damaged"]
UNIT_AT, TO_SHIELD_AT, INTERNAL_AT = 3, 5, 6  # Damaged(unit, shield, to_shield, internal, boxes)
K_SHIP = int(UnitKind.SHIP)
SHAPED, SPARSE, POINTS = 0, 1, 2
REWARD_KINDS = ("shaped", "sparse", "points")


def reward_kind(reward: object) -> int:
    """The compiled reward of the env's ``reward`` option (a name or one of its functions)."""
    for i, name in enumerate(REWARD_KINDS):
        if reward == name or reward is REWARDS[name]:
            return i
    raise ValueError(f"reward {reward!r} is not compiled (compiled: {list(REWARD_KINDS)})")


@nb.njit(cache=True, inline="always")
def end_result(s, b: int, side: int) -> float:
    """+1 / -1 / 0 once battle ``b`` is decided, else 0 (``reward.end_result``)."""
    if not s.done[b] or s.outcome_code[b] < 0:
        return 0.0
    r = (s.outcome_code[b] // 3 ** side) % 3
    return 1.0 if r == WIN else -1.0 if r == LOSS else 0.0 if r == DRAW else 0.0


@nb.njit(cache=True, inline="always")
def _balance(s, b: int, me: int, ship_points: bool) -> float:
    """Points this step's ``Damaged`` rows scored on enemy units minus those ``me`` took:
    internal points on any unit, or (``ship_points``) shield and internal points on ships."""
    my_side = s.side[b, me]
    dealt = 0
    taken = 0
    for r in range(s.ev_count[b]):
        if s.ev[b, r, 0] != DAMAGED:
            continue
        u = s.ev[b, r, UNIT_AT]
        points = s.ev[b, r, INTERNAL_AT]
        if ship_points:
            if s.kind[b, u] != K_SHIP:
                continue
            points += s.ev[b, r, TO_SHIELD_AT]
        if points == 0:
            continue
        if s.side[b, u] != my_side:
            dealt += points
        elif u == me:
            taken += points
    return float(dealt - taken)


@nb.njit(cache=True, inline="always")
def damage_balance(s, b: int, me: int) -> float:
    """(reward.damage_balance) internal points dealt to enemies minus taken by ``me``."""
    return _balance(s, b, me, False)


@nb.njit(cache=True, inline="always")
def points_balance(s, b: int, me: int) -> float:
    """(reward.points_balance) damage points (shield and internal) scored on enemy ships minus
    those taken by ``me``."""
    return _balance(s, b, me, True)


@nb.njit(cache=True, inline="always")
def reward(s, b: int, me: int, kind: int) -> float:
    """The reward of the agent flying unit ``me`` for this step."""
    result = end_result(s, b, s.side[b, me])
    if kind == SPARSE:
        return result
    if kind == POINTS:
        return DAMAGE_SCALE * points_balance(s, b, me) + result
    return DAMAGE_SCALE * damage_balance(s, b, me) + result
