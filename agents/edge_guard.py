"""The map-edge guard: a trained captain's maneuver kept off moves that must leave the map.

In the duels, a ship that leaves the map has disengaged and loses (C1.4, SCENARIOS #5), yet
trained captains fly off the edge: chasing a foe into a corner at speed, a turn too late, or
leaving a lost fight (50 of graduate-captain-v7's 83 losses in 760 games of its weakest seats,
docs/training.md). The guard is a shield in the safe-RL sense: it
never picks an action itself, it only narrows the maneuver component the policy chooses from.

``escape_depths(own, allowed)`` scores each allowed maneuver value by how many further moves
(up to ``HORIZON``) the ship could then make without leaving the map, -1 for a move that leaves
it at once. The moves after the first are straight or 60-degree turns within the turn mode
(C3.2: ``TURN_MODE`` straight hexes before each turn, the chart's highest for the cadet ships
at the duels' speeds; a turn's hex counts as the first straight one, C3.4); a sideslip (C4.2)
enters the forward-left or -right hex keeping the facing and counts as straight movement
(C4.32). ``safest(own, allowed)`` is the set of allowed values with the best score: the
policy's choice stands when it is in that set, else the policy chooses again among them
(``agents.sb3_policy.SB3Policy``, ``guard="map-edge"``). Everything is read from the
observation's own-ship row (place, edges of play, facing, straight hexes) and the mask: a ship
that may not enter a hex on its next move (only NONE or a tactical maneuver open, C1.41) is
never narrowed. At a turn's start NONE is open beside the moves (the speed is chosen with the
maneuver) and means straight if the ship moves on the impulse; it is scored so.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from agents import helm
from agents.observation_view import OwnShip
from sfb_env import hexmap
from sfb_env.engine.types import Maneuver

HORIZON = 6  # further moves that must stay on the map: turning away takes up to three turns
TURN_MODE = 2  # (C3.2) cadet ships' turn mode at speeds 7-16 (1 below), CTH-DATA section 3

_TURN = {int(Maneuver.TURN_LEFT): -1, int(Maneuver.TURN_RIGHT): 1}
_SLIP = {int(Maneuver.SIDESLIP_LEFT): -1, int(Maneuver.SIDESLIP_RIGHT): 1}
_ROTATE = {int(Maneuver.TACTICAL_LEFT): -1, int(Maneuver.TACTICAL_RIGHT): 1}  # (C5) in place
_ENTERS = {int(Maneuver.STRAIGHT), *_TURN, *_SLIP}  # the values that enter a hex


def play_area(own: OwnShip) -> hexmap.MapArea:
    """The area of play, from the own ship's hex and its distances to the four edges."""
    west, east, north, south = own.edges
    return hexmap.MapArea(own.column - west, own.column + east, own.row - north, own.row + south)


def _first_move(x: int, z: int, facing: int, straight: int, value: int):
    """Hex, facing and straight count after maneuver ``value`` (C3.1, C3.4, C4.2, C5)."""
    if value in _TURN:
        facing = (facing + _TURN[value]) % 6
        nx, nz = hexmap.neighbor_np(x, z, facing)
        return int(nx), int(nz), facing, 1
    if value in _SLIP:
        nx, nz = hexmap.neighbor_np(x, z, (facing + _SLIP[value]) % 6)
        return int(nx), int(nz), facing, straight + 1
    if value in (int(Maneuver.STRAIGHT), int(Maneuver.NONE)):  # NONE when it moves: straight
        nx, nz = hexmap.neighbor_np(x, z, facing)
        return int(nx), int(nz), facing, straight + 1
    if value in _ROTATE:
        return x, z, (facing + _ROTATE[value]) % 6, straight
    return x, z, facing, straight


def moves_on_map(area: hexmap.MapArea, x: int, z: int, facing: int, straight: int,
                 horizon: int = HORIZON, turn_mode: int = TURN_MODE) -> int:
    """How many moves (at most ``horizon``) some sequence of straight moves and turns within
    ``turn_mode`` makes from this pose without leaving ``area``."""
    xs, zs = np.array([x]), np.array([z])
    fs, ss = np.array([facing]), np.array([straight])
    for depth in range(horizon):
        _, nx, nz, nf, ns = helm._expand(xs, zs, fs, ss, turn_mode, None)  # the helm's moves
        keep = area.contains_axial_np(nx, nz)
        if not keep.any():
            return depth
        # one row per distinct pose (a capped straight count: beyond the turn mode it is moot)
        poses = np.unique(np.stack([nx[keep], nz[keep], nf[keep],
                                    np.minimum(ns[keep], turn_mode)]), axis=1)
        xs, zs, fs, ss = poses
    return horizon


def escape_depths(own: OwnShip, allowed: Iterable[int], horizon: int = HORIZON,
                  turn_mode: int = TURN_MODE) -> dict[int, int]:
    """Each allowed maneuver value -> moves the ship could make on the map after it (-1: it
    leaves the map at once). NONE beside values that enter a hex is the order of a turn's start
    (the speed is chosen with it): a ship that moves on the impulse goes straight then."""
    allowed = [int(v) for v in allowed]
    area = play_area(own)
    x, z = hexmap.label_to_axial(hexmap.format_label(own.column, own.row))
    out = {}
    for value in allowed:
        if value == int(Maneuver.NONE) and not _ENTERS.intersection(allowed):
            out[value] = moves_on_map(area, x, z, own.facing, own.straight, horizon, turn_mode)
            continue
        nx, nz, nf, ns = _first_move(x, z, own.facing, own.straight, value)
        if not bool(area.contains_axial_np(nx, nz)):
            out[value] = -1
        else:
            out[value] = moves_on_map(area, nx, nz, nf, ns, horizon, turn_mode)
    return out


def safest(own: OwnShip, allowed: Iterable[int], horizon: int = HORIZON,
           turn_mode: int = TURN_MODE) -> set[int]:
    """The allowed maneuver values that keep the ship on the map longest; all of them when none
    enters a hex (C1.41: a ship that does not move next orders NONE or a tactical maneuver)."""
    allowed = [int(v) for v in allowed]
    if not _ENTERS.intersection(allowed) or min(own.edges) > horizon + 1:
        return set(allowed)  # (a move changes the column and the row by one at most)
    depths = escape_depths(own, allowed, horizon, turn_mode)
    best = max(depths.values())
    return {v for v, d in depths.items() if d == best}
