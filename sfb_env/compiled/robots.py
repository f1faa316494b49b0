"""The book's automatic controllers in compiled code (``engine.robots``): the robots' maneuvers
and the convoy freighters' fire orders, for the compiled tiers' controllers.

Controllers are static per scenario in the compiled tiers (no capture: rule ``boarding`` is
off), so ``movement.move_tables`` turns ``battle.controllers`` into the codes below
(``MoveTables.controller``). A shuttle's pilot (J1.0) and the robot ship (``robot-ship``,
SCENARIOS §2.5) move with the ships on the maneuver ``small_craft.plan_pilots`` or
``robot_ship.plan_moves`` chose before any unit moved (``MoveTables.pilot_plan``); the robot
ship's Speed Determination is ``robot_ship_turn`` here; the fighters' pilots fly in
``small_craft.move_fighters``. The stranded *Dakota* (``stranded``, §2.7) neither moves nor
fires: a straight pilot at speed 0.

Hex helpers (axial neighbours, distances, the play area) live here too, so that
``compiled.movement`` can import them without a cycle. Every function takes the movement
tables ``mt`` (``movement.MoveTables``) as its static argument.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env import hexmap
from sfb_env.compiled import dice, handle, planets
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine.types import ACTIVE, K_DRONE, K_SHIP, Box, Maneuver, WeaponType

# controller codes (MoveTables.controller)
AGENT = 0
STRAIGHT_PILOT = 1  # no pilot in engine.robots.PILOTS (target drones, SCENARIOS §2.2): straight
HOMING = 2  # robot-drone, robot-plasma: engine.robots._homing
CONVOY_FREIGHTER = 3  # engine.robots._freighter_maneuver, engine.robots.fire_orders
SHUTTLE_PILOT = 4  # (J1.0) robot-shuttle: small_craft.pilot_maneuver, planned (pilot_plan)
FIGHTER_PILOT = 5  # (J4.12) robot-fighter: small_craft.move_fighters
ROBOT_SHIP = 6  # (SCENARIOS §2.5) robot-ship: robot_ship.plan_moves, planned (pilot_plan)
CONTROLLER_CODES = {"agent": AGENT, "robot-drone": HOMING, "robot-plasma": HOMING,
                    "convoy-freighter": CONVOY_FREIGHTER, "robot-shuttle": SHUTTLE_PILOT,
                    "robot-fighter": FIGHTER_PILOT, "robot-ship": ROBOT_SHIP}
UNPORTED_CONTROLLERS = ("shuttle-pilot", "fighter-pilot")

_WARP = int(Box.WARP)
_PLASMA_S, _PLASMA_F = int(WeaponType.PLASMA_S), int(WeaponType.PLASMA_F)
NONE = int(Maneuver.NONE)
STRAIGHT = int(Maneuver.STRAIGHT)
TURN_LEFT = int(Maneuver.TURN_LEFT)
TURN_RIGHT = int(Maneuver.TURN_RIGHT)
SIDESLIP_LEFT = int(Maneuver.SIDESLIP_LEFT)
SIDESLIP_RIGHT = int(Maneuver.SIDESLIP_RIGHT)

# The state arrays the movement helpers read (``arrays(s)``): helpers take this short tuple,
# not the whole ``BatchState``, whose ~120 fields make every function taking it slow to compile.
MoveArrays = namedtuple("MoveArrays", (
    "kind", "side", "status", "x", "z", "facing", "speed", "straight", "slip", "tactical",
    "tractor_holder", "target", "captured_by", "suicide_launched", "dice", "ev", "ev_count",
    "turn", "impulse"))


@nb.njit(cache=True, inline="always")
def arrays(s) -> MoveArrays:
    """The ``MoveArrays`` of a ``BatchState`` (views, no copies)."""
    return MoveArrays(s.kind, s.side, s.status, s.x, s.z, s.facing, s.speed, s.straight, s.slip,
                      s.tactical, s.tractor_holder, s.target, s.captured_by, s.suicide_launched,
                      s.dice, s.ev, s.ev_count, s.turn, s.impulse)


DX, DZ = hexmap.DIR_DX, hexmap.DIR_DZ  # directions A..F


@nb.njit(cache=True, inline="always")
def distance(x1: int, z1: int, x2: int, z2: int) -> int:
    """(D1.4) ``hexmap.distance_np`` for one pair."""
    dx = x2 - x1
    dz = z2 - z1
    return max(max(abs(dx), abs(dz)), abs(dx + dz))


@kernel(_nrt=False, error_model="numpy")
def area_cell(mt, x: int, z: int) -> int:
    """Flat index of axial (x, z) in the play-area grid, -1 off the map (``Battle.in_area``)."""
    ix = x - mt.area_x0
    iz = z - mt.area_z0
    if ix < 0 or iz < 0 or ix >= mt.area.shape[0] or iz >= mt.area.shape[1]:
        return -1
    if not mt.area[ix, iz]:
        return -1
    return ix * mt.area.shape[1] + iz


@kernel(_nrt=False, error_model="numpy")
def in_area(mt, x: int, z: int) -> bool:
    """``Battle.in_area``: whether the axial hex lies in the scenario's play area."""
    return area_cell(mt, x, z) >= 0


@kernel(_nrt=False, error_model="numpy")
def captured_by_enemy(a, b: int, u: int) -> bool:
    """``unit_rules.captured_by_enemy``."""
    c = a.captured_by[b, u]
    return c >= 0 and c != a.side[b, u]


@kernel(_nrt=False, error_model="numpy")
def destination(a, b: int, u: int, m: int) -> tuple[int, int]:
    """``unit_rules.destination``: the hex a move would enter."""
    turn = -1 if m == TURN_LEFT else (1 if m == TURN_RIGHT else 0)
    slip = -1 if m == SIDESLIP_LEFT else (1 if m == SIDESLIP_RIGHT else 0)
    d = (a.facing[b, u] + turn + slip + 12) % 6
    return a.x[b, u] + DX[d], a.z[b, u] + DZ[d]


@kernel(_nrt=False, error_model="numpy")
def edge_course(a, mt, b: int, u: int) -> int:
    """``unit_rules.edge_course`` (PROPOSAL [P-037]): a captured freighter's move toward the
    nearest map edge; off the map is nearest; ties straight, then left."""
    best = STRAIGHT
    best_d = 1 << 40
    for m in (STRAIGHT, TURN_LEFT, TURN_RIGHT):
        x, z = destination(a, b, u, m)
        cell = area_cell(mt, x, z)
        if cell < 0:
            d = -1
        else:
            nz = mt.area_col.shape[1]
            col = mt.area_col[cell // nz, cell % nz]
            row = mt.area_row[cell // nz, cell % nz]
            d = min(min(col - mt.first_column, mt.last_column - col),
                    min(row - mt.first_row, mt.last_row - row))
        if d < best_d:
            best, best_d = m, d
    return best


@kernel(_nrt=False, error_model="numpy")
def pursuit_choice(straight: int, left: int, right: int, can_turn: bool, die: int) -> int:
    """``seeking.pursuit_choice`` (SCENARIOS §2.3)."""
    if not can_turn or (left >= straight and right >= straight):
        return STRAIGHT
    if left < straight and (right >= straight or left < right):
        return TURN_LEFT
    if right < straight and (left >= straight or right < left):
        return TURN_RIGHT
    return TURN_LEFT if die % 2 else TURN_RIGHT


@kernel(_nrt=False, error_model="numpy")
def homing_maneuver(a, mt, b: int, d: int) -> int:
    """``robots._homing``: ``seeking.target_in_hex`` -> NONE, else
    ``seeking.robot_drone_maneuver`` (a die only on a tie: both turns strictly closer than
    straight and equally close, which no target position on a hex grid gives, so it is never
    drawn without planets). A target row of -1 reads the last unit row, as the reference's
    numpy indexing does (never the case for a drone in play)."""
    return homing_maneuver_a(a.target, a.x, a.z, a.facing, a.straight, a.dice, b, d,
                             mt.planets)


@kernel(_nrt=False, error_model="numpy")
def homing_maneuver_a(target, x_, z_, facing, straight_, dice_, b: int, d: int, pt) -> int:
    """``homing_maneuver`` on arrays (the hot loop passes arrays: numba increfs and decrefs
    every array of a namedtuple argument on each call); ``pt``: the planets, whose hexes a
    homing move steers clear of where it can (P2.0 [P-065]: ``planets.avoid``)."""
    t = target[b, d]
    x, z = x_[b, d], z_[b, d]
    if t >= 0 and x_[b, t] == x and z_[b, t] == z:
        return NONE
    tt = t if t >= 0 else target.shape[1] + t
    tx, tz = x_[b, tt], z_[b, tt]
    f = facing[b, d]
    fl = (f + 5) % 6
    fr = (f + 1) % 6
    straight = distance(x + DX[f], z + DZ[f], tx, tz)
    left = distance(x + DX[fl], z + DZ[fl], tx, tz)
    right = distance(x + DX[fr], z + DZ[fr], tx, tz)
    if pt.on:  # (P2.0 [P-065])
        straight = planets.avoid(pt, x + DX[f], z + DZ[f], straight)
        left = planets.avoid(pt, x + DX[fl], z + DZ[fl], left)
        right = planets.avoid(pt, x + DX[fr], z + DZ[fr], right)
    can_turn = straight_[b, d] >= 1  # (FD1.2) turn mode 1, first move straight
    tie = can_turn and left < straight and left == right
    roll = dice.die(dice_, b) if tie else 1
    return pursuit_choice(straight, left, right, can_turn, roll)


@kernel(_nrt=False, error_model="numpy")
def freighter_maneuver(a, mt, b: int, u: int) -> int:
    """``robots._freighter_maneuver`` (SCENARIOS §2.4): straight until standing in the turn
    column, then turn to the heading; a captured freighter flies to the nearest edge."""
    if captured_by_enemy(a, b, u):
        return edge_course(a, mt, b, u)
    if mt.turn_column < 0:  # (SCENARIOS §2.9 scenario 8) no turns
        return STRAIGHT
    col = a.x[b, u] + 1  # (hexmap.axial_to_offset_np) the column is x + 1 in either parity
    f = a.facing[b, u]
    if col == mt.turn_column and f != mt.new_heading:
        return TURN_RIGHT if (mt.new_heading - f + 6) % 6 <= 3 else TURN_LEFT
    return STRAIGHT


@nb.njit(cache=True, inline="always")
def maneuver_args(s, mt):
    """The arguments of the call out of line that ``pin_maneuver`` pins (a batch keeps them
    in a handle: ``procedure.call_args``)."""
    return (arrays(s), mt)


@nb.njit(cache=True, inline="always")
def pin_maneuver(s, mt):
    """``robot_maneuver``'s arrays and tables, pinned (``handle.pin``: once, before a loop;
    only for a caller that does not return the ref)."""
    return handle.pin(maneuver_args(s, mt))


@kernel(_nrt=False, error_model="numpy")
def robot_maneuver(p, b: int, u: int) -> int:
    """``robots.maneuver``: the robot's maneuver for ``u``'s move on the current impulse;
    ``p``: ``pin_maneuver(s, mt)``."""
    a, mt = handle.deref(p)
    c = mt.controller[u]
    if c == HOMING:
        return homing_maneuver(a, mt, b, u)
    if c == CONVOY_FREIGHTER:
        return freighter_maneuver(a, mt, b, u)
    if c in (SHUTTLE_PILOT, ROBOT_SHIP):  # (J1.0, SCENARIOS §2.5) planned before any
        return mt.pilot_plan[u]  # unit moved (small_craft.plan_pilots, robot_ship.plan_moves)
    return STRAIGHT


@kernel(_nrt=False, error_model="numpy")
def robot_ship_turn(speed, boxes, w_ready_turn, w_armed, w_type, w_owner, robot_speed,
                    robot_warp, turn: int, b: int, u: int) -> None:
    """``robot_ship.start_turn`` (SCENARIOS §2.5, CTH-DATA §10.1): the robot's speed is the
    configured one less one per warp box lost so far; every weapon is armed (``w_ready_turn``
    at most this turn, ``w_armed``) except plasma launchers, whose turns ``plasma`` keeps."""
    lost = robot_warp[u] - boxes[b, u, _WARP]
    speed[b, u] = max(0, robot_speed[u] - lost)
    for w in range(w_owner.shape[1]):
        if w_owner[b, w] != u:
            continue
        if w_ready_turn[b, w] > turn:
            w_ready_turn[b, w] = turn
        if not (_PLASMA_S <= w_type[b, w] <= _PLASMA_F):
            w_armed[b, w] = True


@nb.njit(cache=True, inline="always")
def robot_fire_due(s, mt, b: int) -> bool:
    """Whether some active convoy freighter fires on this impulse (its ``fire_impulses``
    entry): the step kernel needs the ``legal`` matrix of ``robot_fire_orders`` only then."""
    for u in range(s.kind.shape[1]):
        if (s.status[b, u] == ACTIVE and mt.controller[u] == CONVOY_FREIGHTER
                and mt.fire_impulse[u] == s.impulse[b]):
            return True
    return False


@nb.njit(cache=True, inline="always")
def robot_fire_orders(s, mt, b: int, fire_out: np.ndarray, legal: np.ndarray) -> None:
    """``robots.fire_orders`` for the compiled tiers' robots (convoy freighters, SCENARIOS §2.4;
    the robot ship is not ported): on its ``fire_impulses`` impulse each freighter's weapons,
    in row order, fire at the closest drone aimed at it, else at the closest ship (within
    ``max_range`` if set; lowest row on ties). Writes target rows into ``fire_out[b, w]``
    (a ``BatchOrders.fire``-like array; untouched where no shot).

    ``legal``: (W, U) bool or 0/1 ints, ``legal[w, t]`` =
    ``direct_fire.fire_blockers(battle, w)[t] is None`` at this moment (the fire helper's
    predicate). Only the rows of the weapons of the
    firing freighters are read.

    The reference calls it inside ``procedure._fire_direct_fire``, after the players' orders
    (and phaser-G shots) are gathered: ``shots += robots.fire_orders(battle)``, i.e. in the
    impulse's Fire Direct-Fire step, after launches and before ``direct_fire.resolve_fire``;
    its shots come after every player's shot in the volley list."""
    n_units = s.kind.shape[1]
    imp = s.impulse[b]
    for u in range(n_units):
        if s.status[b, u] != ACTIVE or mt.controller[u] != CONVOY_FREIGHTER:
            continue
        if mt.fire_impulse[u] != imp:
            continue
        x, z = s.x[b, u], s.z[b, u]
        for w in range(mt.weapon_owner.shape[0]):
            if mt.weapon_owner[w] != u:
                continue
            best = -1
            best_d = 0
            for t in range(n_units):  # the closest drone aimed at this freighter
                if legal[w, t] and s.kind[b, t] == K_DRONE and s.target[b, t] == u:
                    dt = distance(x, z, s.x[b, t], s.z[b, t])
                    if best < 0 or dt < best_d:
                        best, best_d = t, dt
            if best < 0:  # else the raiding ship
                for t in range(n_units):
                    if not (legal[w, t] and s.kind[b, t] == K_SHIP):
                        continue
                    dt = distance(x, z, s.x[b, t], s.z[b, t])
                    if mt.fire_max_range >= 0 and dt > mt.fire_max_range:
                        continue
                    if best < 0 or dt < best_d:
                        best, best_d = t, dt
            if best >= 0:
                fire_out[b, w] = best
