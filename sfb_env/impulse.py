"""The impulse clock: proportional movement (C1.4x), movement order (C1.3), quarter turns (E1.5).

A unit of speed N moves on impulse i of an I-impulse turn iff
``floor(i*N/I) > floor((i-1)*N/I)`` (CTH-DATA §2.2); this reproduces the printed 8-, 16- and
32-impulse charts cell by cell. Time records count impulses, never hexes moved (C1.44).
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache

import numpy as np

IMPULSES_PER_TURN: tuple[int, ...] = (8, 16, 32)


class UnitCategory(IntEnum):
    """(C1.3) Movement categories in the order they move within an impulse."""

    MONSTER = 0
    SHIP = 1
    SHUTTLE = 2  # shuttles and fighters, always after all ships
    SEEKING = 3  # drones, plasma torpedoes, suicide shuttles


def check_impulses_per_turn(impulses_per_turn: int) -> int:
    """Validate the chart size: 8, 16 or 32 impulses per turn."""
    if isinstance(impulses_per_turn, bool) or impulses_per_turn not in IMPULSES_PER_TURN:
        raise ValueError(
            f"impulses_per_turn {impulses_per_turn!r} has no chart; expected one of "
            f"{list(IMPULSES_PER_TURN)}"
        )
    return int(impulses_per_turn)


def check_impulse(impulse: int, impulses_per_turn: int) -> int:
    """Validate an impulse number 1..I."""
    ipt = check_impulses_per_turn(impulses_per_turn)
    if isinstance(impulse, bool) or not isinstance(impulse, (int, np.integer)):
        raise ValueError(f"impulse {impulse!r} is not an integer")
    if not 1 <= impulse <= ipt:
        raise ValueError(f"impulse {impulse} outside 1..{ipt} of the {ipt}-impulse chart")
    return int(impulse)


def check_speed(speed: int, impulses_per_turn: int) -> int:
    """Validate a speed 0..I (the chart's columns; ships are capped lower by C1.42)."""
    ipt = check_impulses_per_turn(impulses_per_turn)
    if isinstance(speed, bool) or not isinstance(speed, (int, np.integer)):
        raise ValueError(f"speed {speed!r} is not an integer")
    if not 0 <= speed <= ipt:
        raise ValueError(f"speed {speed} outside 0..{ipt} of the {ipt}-impulse chart (C1.42)")
    return int(speed)


@cache
def movement_chart(impulses_per_turn: int) -> np.ndarray:
    """(C1.41) Boolean chart ``[speed 0..I, impulse 1..I]`` (column j = impulse j + 1)."""
    ipt = check_impulses_per_turn(impulses_per_turn)
    speed = np.arange(ipt + 1)[:, None]
    i = np.arange(1, ipt + 1)[None, :]
    chart = (i * speed) // ipt > ((i - 1) * speed) // ipt
    chart.setflags(write=False)
    return chart


def moves_on(speed: int, impulse: int, impulses_per_turn: int = 8) -> bool:
    """(C1.41) Whether a unit at ``speed`` moves on ``impulse``."""
    speed = check_speed(speed, impulses_per_turn)
    impulse = check_impulse(impulse, impulses_per_turn)
    return bool(movement_chart(impulses_per_turn)[speed, impulse - 1])


def hexes_moved(speed: int, impulse: int, impulses_per_turn: int = 8) -> int:
    """Hexes moved so far this turn after ``impulse``: the number printed in the chart cell."""
    speed = check_speed(speed, impulses_per_turn)
    impulse = check_impulse(impulse, impulses_per_turn)
    return (impulse * speed) // impulses_per_turn


def move_impulses(speed: int, impulses_per_turn: int = 8) -> list[int]:
    """The impulses on which a unit at ``speed`` moves, e.g. speed 5 of 8 -> [2, 4, 5, 7, 8]."""
    speed = check_speed(speed, impulses_per_turn)
    return [int(i) + 1 for i in np.flatnonzero(movement_chart(impulses_per_turn)[speed])]


def moves_on_np(speeds: np.ndarray, impulse: int, impulses_per_turn: int) -> np.ndarray:
    """Vectorised :func:`moves_on` over an array of speeds (each 0..I)."""
    chart = movement_chart(impulses_per_turn)
    return chart[np.asarray(speeds, dtype=np.int64), impulse - 1]


def movement_order(categories: np.ndarray, speeds: np.ndarray) -> list[np.ndarray]:
    """(C1.3) Groups of unit indices in the order they move within an impulse.

    Categories move monsters, ships, shuttles/fighters, seeking weapons; within a category the
    slower units move first, and units of equal speed form one group moving simultaneously
    (on secret written orders).
    """
    categories = np.asarray(categories, dtype=np.int64)
    speeds = np.asarray(speeds, dtype=np.int64)
    if categories.shape != speeds.shape:
        raise ValueError("categories and speeds must have the same shape")
    if len(categories) == 0:
        return []
    keys = np.stack([categories, speeds], axis=1)
    unique = np.unique(keys, axis=0)  # sorted by category, then speed
    return [np.flatnonzero((keys == key).all(axis=1)) for key in unique]


def quarter_turn(impulses_per_turn: int) -> int:
    """(E1.5) Impulses in a quarter turn: 2, 4 or 8."""
    return check_impulses_per_turn(impulses_per_turn) // 4


def absolute_impulse(turn: int, impulse: int, impulses_per_turn: int) -> int:
    """Impulses since the start of the battle: T = (turn - 1) * I + impulse."""
    impulse = check_impulse(impulse, impulses_per_turn)
    if turn < 1:
        raise ValueError(f"turn {turn} must be >= 1")
    return (turn - 1) * impulses_per_turn + impulse


def quarter_turn_elapsed(last_fired: int, now: int, impulses_per_turn: int) -> bool:
    """(E1.5) Whether a weapon last fired at absolute impulse ``last_fired`` may fire at ``now``.

    A shot needs ``now - last_fired >= I/4``, across the turn break: fired on impulse 8 of an
    8-impulse turn, the earliest next shot is impulse 2 of the next turn.
    """
    return now - last_fired >= quarter_turn(impulses_per_turn)
