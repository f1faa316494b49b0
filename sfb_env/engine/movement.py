"""Movement: facing (C1.2), proportional movement (C1.41), turn modes (C3), leaving the map.

``maneuver_blockers`` is the single legality predicate for a unit's next move: the env's masks
and the engine's order validation both call it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap, impulse, tables
from sfb_env.engine import events as ev
from sfb_env.engine.types import ACTIVE, K_DRONE, K_TARGET_DRONE, Maneuver, Status, UnitKind

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

SATISFIED = 10**6  # (C3.43) every unit starts with its turn mode satisfied


def turn_mode(battle: Battle, unit: int, speed: int | None = None) -> int:
    """(C3.2, C3.3) Hexes of straight movement needed before a turn, at the unit's speed
    (or at ``speed``)."""
    st = battle.state
    kind = st.kind[unit]
    if kind in (K_DRONE, K_TARGET_DRONE):
        return 1  # seeking weapons: turn mode 1 (CTH-DATA §3.2)
    chart = battle.turn_mode_chart[unit]
    s = int(st.speed[unit]) if speed is None else speed
    return tables.turn_mode(chart, max(s, 1))


def next_move_impulse(battle: Battle) -> int:
    """The impulse whose move the current decision orders (i + 1, or 1 after the last)."""
    st = battle.state
    return 1 if st.impulse in (0, st.impulses_per_turn) else st.impulse + 1


def moves_next(battle: Battle, unit: int, speed: int | None = None) -> bool:
    """Whether the unit moves on the next impulse (at ``speed`` if given)."""
    st = battle.state
    if st.status[unit] != ACTIVE:
        return False
    s = int(st.speed[unit]) if speed is None else speed
    return impulse.moves_on(s, next_move_impulse(battle), st.impulses_per_turn)


def maneuver_blockers(
    battle: Battle, unit: int, can_move: bool, speed: int | None = None
) -> dict[Maneuver, str]:
    """Maneuvers the unit may not order for its next move, each with the rule that forbids it.

    ``can_move``: whether the unit moves on that impulse (C1.41). A unit that does not move may
    only order NONE; a unit that moves may go straight, or turn once its turn mode (at its
    current speed, or at ``speed``) is met (C3.2; the hex entered on the turn counts as the first
    straight hex, C3.4; the count carries over turns, C3.41/C3.42).
    """
    if not can_move:
        rule = "C1.41 the impulse chart does not move this unit on the next impulse"
        return {m: rule for m in Maneuver if m != Maneuver.NONE}
    blocked = {Maneuver.NONE: "C1.41 the unit moves on the next impulse: order its move"}
    need = turn_mode(battle, unit, speed)
    have = int(battle.state.straight[unit])
    if have < need:
        hexes = "hex" if have == 1 else "hexes"
        rule = f"C3.2 turn mode {need} not satisfied ({have} {hexes} straight)"
        blocked[Maneuver.TURN_LEFT] = rule
        blocked[Maneuver.TURN_RIGHT] = rule
    return blocked


def move_unit(battle: Battle, unit: int, maneuver: Maneuver) -> None:
    """Move one unit one hex: turn first if ordered (C3.1), then enter the hex in front."""
    st = battle.state
    turned = {Maneuver.TURN_LEFT: -1, Maneuver.TURN_RIGHT: 1}.get(maneuver, 0)
    if turned:
        st.facing[unit] = (st.facing[unit] + turned) % 6
        st.straight[unit] = 0  # (C3.4) the hex entered on the turn counts as the first
    nx, nz = hexmap.neighbor_np(st.x[unit], st.z[unit], st.facing[unit])
    src = battle.label(unit)
    facing = hexmap.DIRECTION_LETTERS[int(st.facing[unit])]
    if not battle.in_area(nx, nz):
        st.status[unit] = Status.DISENGAGED
        battle.log(ev.LeftMap(st.turn, st.impulse, battle.unit_ids[unit], src, facing))
        return
    st.x[unit], st.z[unit] = int(nx), int(nz)
    st.straight[unit] = min(int(st.straight[unit]) + 1, SATISFIED)  # (C3.41) carries over turns
    battle.log(ev.Moved(st.turn, st.impulse, battle.unit_ids[unit], src, battle.label(unit),
                        facing, turned))


def movers(battle: Battle, kinds: tuple[UnitKind, ...]) -> np.ndarray:
    """Active units of ``kinds`` that move on the current impulse (C1.41)."""
    st = battle.state
    active = st.status == ACTIVE
    of_kind = np.zeros(len(st.kind), dtype=bool)
    for k in kinds:  # (cheaper than np.isin on a few rows)
        of_kind |= st.kind == int(k)
    active &= of_kind
    moving = impulse.moves_on_np(st.speed, st.impulse, st.impulses_per_turn)
    return np.flatnonzero(active & moving)
