"""The book's automatic controllers (SCENARIOS.md §2); the robot ship is ``robot_ship``.

Each robot gives, for a unit it controls, the maneuver of its next move and its fire orders.
Dice come from the battle's generator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import direct_fire, geometry, robot_ship, seeking, small_craft, unit_rules
from sfb_env.engine.types import ACTIVE, K_DRONE, K_SHIP, Maneuver

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle


def maneuver(battle: Battle, unit: int) -> Maneuver:
    """The robot's maneuver for ``unit``'s move on the current impulse (``PILOTS``); target
    drones (SCENARIOS §2.2) and idle units fly straight."""
    pilot = PILOTS.get(battle.controllers[unit])
    return Maneuver.STRAIGHT if pilot is None else pilot(battle, unit)


def _homing(battle: Battle, unit: int) -> Maneuver:
    """(F2.0, FP1.4) A drone, or a plasma torpedo alike, homes on its target; in its hex it
    stays."""
    if seeking.target_in_hex(battle, unit):
        return Maneuver.NONE
    return seeking.robot_drone_maneuver(battle, unit)


def _freighter_maneuver(battle: Battle, unit: int) -> Maneuver:
    """(SCENARIOS §2.4) Straight until standing in the turn column, then turn to the heading."""
    st = battle.state
    cfg = battle.scenario.robots.get("convoy-freighter", {})
    if unit_rules.captured_by_enemy(battle, unit):  # (SCENARIOS #8) a prize flown off
        return unit_rules.edge_course(battle, unit)
    if cfg.get("turn_column", 15) is None:  # (SCENARIOS §2.9 scenario 8) no turns
        return Maneuver.STRAIGHT
    column = int(cfg.get("turn_column", 15))
    heading = hexmap.direction_index(cfg.get("new_heading", "C"))
    col, _ = hexmap.axial_to_offset_np(st.x[unit], st.z[unit], battle.scenario.parity)
    if int(col) == column and st.facing[unit] != heading:
        return Maneuver.TURN_RIGHT if (heading - st.facing[unit]) % 6 <= 3 else Maneuver.TURN_LEFT
    return Maneuver.STRAIGHT


#: The book's pilots by controller: each gives the maneuver of a unit's next move.
PILOTS: dict[str, Callable[[Battle, int], Maneuver]] = {
    "robot-drone": _homing,
    "robot-plasma": _homing,
    "convoy-freighter": _freighter_maneuver,  # (SCENARIOS §2.4)
    robot_ship.CONTROLLER: robot_ship.maneuver,  # (SCENARIOS §2.5) the robot ship
    small_craft.SHUTTLE_CONTROLLER: small_craft.pilot_maneuver,  # (J1.0) the shuttle's pilot
}


def fire_orders(battle: Battle) -> list[tuple[int, int]]:
    """Fire orders of every robot-controlled unit for the current impulse."""
    st = battle.state
    shots: list[tuple[int, int]] = []
    cfg = battle.scenario.robots.get("convoy-freighter", {})
    schedule = cfg.get("fire_impulses", {})
    for unit in np.flatnonzero(st.status == ACTIVE):
        if battle.controllers[unit] == robot_ship.CONTROLLER:  # (SCENARIOS §2.5)
            shots += robot_ship.fire_orders(battle, int(unit))
            continue
        if battle.controllers[unit] != "convoy-freighter":
            continue
        if schedule.get(battle.unit_ids[unit]) != st.impulse:
            continue
        for w in battle.weapons_of(unit):
            target = _freighter_target(battle, int(unit), int(w))
            if target is not None:
                shots.append((int(w), target))
    return shots


def launch_orders(battle: Battle) -> list[tuple[int, int]]:
    """Drone launches (rack, target) of every robot ship for this impulse (SCENARIOS §2.5)."""
    st = battle.state
    out: list[tuple[int, int]] = []
    for unit, controller in enumerate(battle.controllers):
        if controller == robot_ship.CONTROLLER and st.status[unit] == ACTIVE:
            out += robot_ship.launch_orders(battle, unit)
    return out


def start_turn(battle: Battle, unit: int) -> None:
    """Speed Determination for a robot-controlled unit (robot ships: SCENARIOS §2.5)."""
    if battle.controllers[unit] == robot_ship.CONTROLLER:
        robot_ship.start_turn(battle, unit)


def _freighter_target(battle: Battle, unit: int, w: int) -> int | None:
    """(SCENARIOS §2.4) The closest drone aimed at this freighter, else the raiding ship."""
    st = battle.state
    legal = np.array([b is None for b in direct_fire.fire_blockers(battle, w)])
    if not legal.any():
        return None
    dist = hexmap.distance_np(st.x[unit], st.z[unit], st.x, st.z)
    drones = legal & (st.kind == K_DRONE) & (st.target == unit)
    if drones.any():
        rows = np.flatnonzero(drones)
        return int(rows[np.lexsort((rows, dist[rows]))[0]])
    ships = legal & (st.kind == K_SHIP)
    reach = battle.scenario.robots.get("convoy-freighter", {}).get("max_range")
    if reach is not None:  # (SCENARIOS §2.9 scenario 8) the pirate only within 10 hexes
        ships &= dist <= int(reach)
    if ships.any():
        rows = np.flatnonzero(ships)
        return int(rows[np.lexsort((rows, dist[rows]))[0]])
    return None


def craft_fire_orders(battle: Battle) -> list[tuple[int, int]]:
    """The small craft pilots' shots this impulse (PROPOSAL [P-087], SCENARIOS §2.9): the target at
    range <= 2, else the nearest enemy the gun may legally hit within 2 hexes (lowest row on
    ties)."""
    st = battle.state
    shots: list[tuple[int, int]] = []
    ranges = geometry.table(st).range
    active = st.status == ACTIVE
    for f in np.flatnonzero(active & (battle.craft_gun >= 0)):
        rng = ranges[f]
        near = (rng <= small_craft.PILOT_FIRE_RANGE) & active & (st.side != st.side[f])
        if not near.any():  # nothing to shoot within reach: the predicate is not asked
            continue
        w = int(battle.craft_gun[f])
        legal = direct_fire.fire_mask(battle, np.array([w]))[0]  # the fire predicate
        legal &= rng <= small_craft.PILOT_FIRE_RANGE
        t = int(st.target[f])
        if t >= 0 and legal[t]:
            shots.append((w, t))
        elif legal.any():
            rows = np.flatnonzero(legal)
            shots.append((w, int(rows[np.lexsort((rows, rng[rows]))[0]])))
    return shots
