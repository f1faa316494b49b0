"""Speed Determination, Move Ships and Move Seeking Weapons in compiled code.

Mirrors ``engine.procedure._speed_determination``, ``engine.procedure._move_ships`` and
``engine.procedure._move_seeking_weapons`` with ``engine.movement`` (``movers``,
``move_unit``, ``start_turn_tactical``) and the robots' maneuvers (``compiled.robots``), for the
rules of the compiled tiers. ``move_tables(setup)`` builds the static ``MoveTables`` of a
scenario and refuses one that needs what is not ported (robots it does not fly; the monster
moves first in Move Ships: ``compiled.planet_killer.move_step`` between ``keep_previous`` and
``move_units``);
administrative shuttles (J1.0) and robot ships (SCENARIOS §2.5) move with the
ships on the maneuvers their pilots planned (``MoveTables.pilot_plan``: ``compiled.small_craft``,
``compiled.robot_ship``).

Order inside ``procedure.advance`` (the step kernel calls them the same way):
``speed_determination`` where the reference calls ``_speed_determination`` (at impulse 0 or
after End of Turn of the last impulse, when ``st.impulse`` is 0, with that decision point's
orders; before the energy form, tractors' start of turn and lock-on), then
``st.impulse`` becomes 1 (else ``+= 1``); ``move_ships``; tractor towing
(``compiled.tractors.tow``: held units do not move by themselves here); the fighters
(``small_craft.move_fighters``); ``move_seeking_weapons``; then the planets' crashes
(``compiled.planets.movement_step``), tactical maneuvers (``compiled.maneuvers``), the ESG
fields' contacts (``compiled.esg.resolve_contacts``),
the monster's after-movement step (``compiled.planet_killer.after_movement``),
``seeking.resolve_impacts`` (the fire helper's).

Compile time: every numba function taking the whole ``BatchState`` (~120 fields) costs about
3 s of CPU to compile, so the helpers take ``robots.MoveArrays`` (19 arrays) and the phase
entry points are ``inline="always"``: a step kernel calling them pays for ``BatchState`` once.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env import hexmap
from sfb_env.compiled import event_codes, planets, robots
from sfb_env.compiled.borrowed import borrow
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.robots import AGENT, DX, DZ, NONE, STRAIGHT
from sfb_env.engine import robot_ship as ref_robot
from sfb_env.engine.movement import SATISFIED
from sfb_env.engine.types import (
    ACTIVE,
    DISENGAGED,
    K_DRONE,
    K_FREIGHTER,
    K_PLASMA,
    K_SHIP,
    K_SHUTTLE,
    K_TARGET_DRONE,
    Box,
    Maneuver,
)

MOVED = event_codes.CODE["Moved"]
LEFT_MAP = event_codes.CODE["LeftMap"]
STAYED_ON_MAP = event_codes.CODE["StayedOnMap"]
SPEED_SET = event_codes.CODE["SpeedSet"]
TACTICAL_PLOTTED = event_codes.CODE["TacticalPlotted"]
_IMPULSE_BOX = int(Box.IMPULSE)
_TURN_LEFT, _TURN_RIGHT = int(Maneuver.TURN_LEFT), int(Maneuver.TURN_RIGHT)
_SLIP_LEFT, _SLIP_RIGHT = int(Maneuver.SIDESLIP_LEFT), int(Maneuver.SIDESLIP_RIGHT)
MAX_REDUCTIONS = 8

MoveTables = namedtuple("MoveTables", (
    "ipt",  # impulses per turn
    "chart",  # (ipt + 1, ipt) bool impulse.movement_chart
    "area",  # (NX, NZ) bool play area over axial x - area_x0, z - area_z0
    "area_x0", "area_z0",
    "area_col", "area_row",  # (NX, NZ) int64 the hex's printed column and row (edge_course)
    "first_column", "last_column", "first_row", "last_row",  # the map area (edge_course)
    "controller",  # (U,) int64 robots.AGENT / STRAIGHT_PILOT / HOMING / CONVOY_FREIGHTER
    "may_leave",  # (U,) bool BattleSetup.may_leave
    "freighter",  # (U,) bool has a FreighterRules sheet (R1.6)
    "start_speed",  # (U,) int64 BattleSetup.start_speed
    "n_reductions",  # (U,) int64 freighter speed reductions
    "red_at", "red_loss",  # (U, MAX_REDUCTIONS) int64 (internal points, speed lost)
    "tactical_rule",  # bool rules.tactical_maneuvers
    "suicide_rule",  # bool rules.suicide_shuttles (never in the compiled tiers)
    "turn_column", "new_heading",  # convoy-freighter robot: -1 = no turns (SCENARIOS §2.4)
    "fire_impulse",  # (U,) int64 a convoy freighter's fire impulse, -1 none
    "fire_max_range",  # int convoy-freighter max_range, -1 none
    "weapon_owner",  # (W,) int64 weapon owner rows
    "pilot_plan",  # (U,) int64 scratch: shuttle pilots' maneuvers (small_craft.plan_pilots)
    #   and the robot ships' (robot_ship.plan_moves)
    # (SCENARIOS §2.5) a robot ship's configured speed and its class's warp boxes (its speed
    # falls by one per warp box lost: robots.robot_ship_turn); 0 for other units
    "robot_speed", "robot_warp",
    "planets",  # (P2.0) compiled.planets.PlanetTables: homing moves steer clear (P-065)
))


def move_tables(setup) -> MoveTables:
    """The static movement tables of a scenario (a ``BattleSetup``); raises ValueError on a
    scenario using what this module does not port."""
    rules = setup.rules
    controllers = list(setup.start_state.controllers)
    unported = [c for c in controllers if c in robots.UNPORTED_CONTROLLERS]
    if unported:
        raise ValueError(f"compiled movement does not port {unported}")
    ipt = int(setup.start_state.impulses_per_turn)
    from sfb_env import impulse
    chart = np.ascontiguousarray(impulse.movement_chart(ipt), dtype=np.bool_)
    xs = [x for x, _ in setup.area_labels]
    zs = [z for _, z in setup.area_labels]
    x0, z0 = min(xs), min(zs)
    shape = (max(xs) - x0 + 1, max(zs) - z0 + 1)
    area = np.zeros(shape, dtype=np.bool_)
    area_col = np.zeros(shape, dtype=np.int64)
    area_row = np.zeros(shape, dtype=np.int64)
    for (x, z), label in setup.area_labels.items():
        area[x - x0, z - z0] = True
        area_col[x - x0, z - z0], area_row[x - x0, z - z0] = hexmap.parse_label(label)
    n_units = len(setup.unit_ids)
    controller = np.array([robots.CONTROLLER_CODES.get(c, robots.STRAIGHT_PILOT)
                           for c in controllers], dtype=np.int64)
    freighter = np.zeros(n_units, dtype=np.bool_)
    n_red = np.zeros(n_units, dtype=np.int64)
    red_at = np.zeros((n_units, MAX_REDUCTIONS), dtype=np.int64)
    red_loss = np.zeros((n_units, MAX_REDUCTIONS), dtype=np.int64)
    for u, ship in enumerate(setup.ship_classes):
        if ship is None or ship.freighter is None:
            continue
        freighter[u] = True
        reds = list(ship.freighter.speed_reductions)
        if len(reds) > MAX_REDUCTIONS:
            raise ValueError("raise compiled.movement.MAX_REDUCTIONS")
        n_red[u] = len(reds)
        for k, (at, loss) in enumerate(reds):
            red_at[u, k], red_loss[u, k] = at, loss
    cfg = dict(setup.scenario.robots.get("convoy-freighter", {}) or {})
    column = cfg.get("turn_column", 15)
    schedule = cfg.get("fire_impulses", {}) or {}
    fire_impulse = np.array([int(schedule.get(uid, -1)) for uid in setup.unit_ids],
                            dtype=np.int64)
    reach = cfg.get("max_range")
    area_def = setup.scenario.map_area
    robot_speed = np.zeros(n_units, dtype=np.int64)
    robot_warp = np.zeros(n_units, dtype=np.int64)
    ship_cfg = dict(setup.scenario.robots.get("robot-ship", {}) or {})
    for u, c in enumerate(controllers):
        if c == "robot-ship":  # (SCENARIOS §2.5, engine.robot_ship.turn_speed)
            ship = setup.ship_classes[u]
            robot_speed[u] = int(ship_cfg.get("speed", ref_robot.DEFAULT_SPEED))
            robot_warp[u] = sum(ship.warp.values()) if ship else 0
    return MoveTables(
        ipt=ipt, chart=chart, area=area, area_x0=int(x0), area_z0=int(z0),
        area_col=area_col, area_row=area_row,
        first_column=int(area_def.first_column), last_column=int(area_def.last_column),
        first_row=int(area_def.first_row), last_row=int(area_def.last_row),
        controller=controller, may_leave=np.asarray(setup.may_leave, dtype=np.bool_).copy(),
        freighter=freighter, start_speed=np.asarray(setup.start_speed, dtype=np.int64).copy(),
        n_reductions=n_red, red_at=red_at, red_loss=red_loss,
        tactical_rule=bool(rules.tactical_maneuvers), suicide_rule=bool(rules.suicide_shuttles),
        turn_column=-1 if column is None else int(column),
        new_heading=hexmap.direction_index(cfg.get("new_heading", "C")),
        fire_impulse=fire_impulse, fire_max_range=-1 if reach is None else int(reach),
        weapon_owner=np.asarray(setup.start_state.w_owner, dtype=np.int64).copy(),
        pilot_plan=np.zeros(n_units, dtype=np.int64),
        robot_speed=robot_speed, robot_warp=robot_warp,
        planets=planets.planet_tables(setup),
    )


# ---------------------------------------------------------------------- helpers


@kernel(_nrt=False, error_model="numpy")
def moves_on(mt, speed: int, imp: int) -> bool:
    """``impulse.moves_on`` (C1.41): a unit at ``speed`` moves on impulse ``imp``."""
    return mt.chart[speed, imp - 1]


@kernel(_nrt=False, error_model="numpy")
def _is_mover(a, mt, b: int, u: int, seeking: bool) -> bool:
    """``movement.movers``: active, of the phase's kinds, not on tactical maneuvers, not held
    in a tractor beam, moving on this impulse by the chart."""
    return _is_mover_a(a.status, a.kind, a.tactical, a.tractor_holder, a.speed, mt.chart,
                       a.impulse[b], b, u, seeking)


@nb.njit(cache=True, inline="always")
def _is_mover_a(status, kind, tactical, tractor_holder, speed, chart, imp, b, u, seeking):
    """``_is_mover`` on arrays (the hot loops pass arrays: numba increfs and decrefs every
    array of a namedtuple argument on each call)."""
    if status[b, u] != ACTIVE:
        return False
    k = kind[b, u]
    if seeking:
        if k not in (K_DRONE, K_TARGET_DRONE, K_PLASMA):
            return False
    elif k not in (K_SHIP, K_FREIGHTER, K_SHUTTLE):
        return False
    if tactical[b, u] or tractor_holder[b, u] >= 0:
        return False
    return chart[speed[b, u], imp - 1]


@kernel(_nrt=False, error_model="numpy")
def move_unit(a, mt, b: int, u: int, m: int) -> None:
    """``engine.movement.move_unit``: turn first if ordered (C3.1), then enter the hex in front
    (or sideslip, C4.2); off the play area the unit disengages (LeftMap) unless it may not
    leave (StayedOnMap); else Moved."""
    _move_unit_a(a.facing, a.straight, a.slip, a.x, a.z, a.status, a.captured_by, a.side,
                 a.ev, a.ev_count, a.turn[b], a.impulse[b], mt.area, mt.area_x0, mt.area_z0,
                 mt.may_leave, b, u, m)


@nb.njit(cache=True, inline="always")
def _move_unit_a(facing, straight, slip, x, z, status, captured_by, side, ev, ev_count, turn,
                 imp, area, area_x0, area_z0, may_leave, b, u, m):
    """``move_unit`` on arrays (``turn``, ``imp``: battle ``b``'s)."""
    turned = -1 if m == _TURN_LEFT else (1 if m == _TURN_RIGHT else 0)
    slipped = -1 if m == _SLIP_LEFT else (1 if m == _SLIP_RIGHT else 0)
    if turned != 0:
        facing[b, u] = (facing[b, u] + turned + 6) % 6
        straight[b, u] = 0  # (C3.4)
        slip[b, u] = 0
    f = facing[b, u]
    d = (f + slipped + 6) % 6
    sx, sz = x[b, u], z[b, u]
    nx, nz = sx + DX[d], sz + DZ[d]
    ix, iz = nx - area_x0, nz - area_z0
    inside = (0 <= ix < area.shape[0] and 0 <= iz < area.shape[1]
              and area[ix, iz])  # (robots.in_area)
    if not inside:
        c = captured_by[b, u]
        if not may_leave[u] and not (c >= 0 and c != side[b, u]):
            r = event_codes.begin(ev, ev_count, b, STAYED_ON_MAP, turn, imp)
            ev[b, r, 3] = u
            ev[b, r, 4] = sx
            ev[b, r, 5] = sz
            return
        status[b, u] = DISENGAGED
        r = event_codes.begin(ev, ev_count, b, LEFT_MAP, turn, imp)
        ev[b, r, 3] = u
        ev[b, r, 4] = sx
        ev[b, r, 5] = sz
        ev[b, r, 6] = f
        return
    x[b, u] = nx
    z[b, u] = nz
    straight[b, u] = min(straight[b, u] + 1, SATISFIED)  # (C3.41, C4.32)
    slip[b, u] = 0 if slipped != 0 else min(slip[b, u] + 1, SATISFIED)  # (C4.31)
    r = event_codes.begin(ev, ev_count, b, MOVED, turn, imp)
    ev[b, r, 3] = u
    ev[b, r, 4] = sx
    ev[b, r, 5] = sz
    ev[b, r, 6] = nx
    ev[b, r, 7] = nz
    ev[b, r, 8] = f
    ev[b, r, 9] = turned
    ev[b, r, 10] = slipped


# ---------------------------------------------------------------------- phases


@nb.njit(cache=True, inline="always")
def speed_determination(s, mt, b: int, o) -> None:
    """``engine.procedure._speed_determination`` (B2.0 Speed Determination) for battle ``b``:
    per active unit in row order, ``movement.start_turn_tactical`` (the TAC plot is
    ``o.tactical`` where the rule is on: the compiled orders cannot tell a missing order from
    one without TAC), the speed order, (robot ships' ``robots.start_turn``: not ported), the
    freighters' R1.6 speed, then SpeedSet (and TacticalPlotted) for ships and freighters.
    Called where the reference calls it: impulse 0 or the last impulse, after End of Turn, with
    that decision point's orders; SpeedSet is logged at impulse 0."""
    n_units = s.kind.shape[1]
    for u in range(n_units):
        if s.status[b, u] != ACTIVE:
            continue
        plot = mt.tactical_rule and o.tactical[b, u]
        # movement.start_turn_tactical (C5.4, C5.11, C5.12)
        if s.tactical[b, u]:
            s.previous_speed[b, u] = 0
            s.straight[b, u] = 0
            s.slip[b, u] = 0
        else:
            s.previous_speed[b, u] = s.speed[b, u]
        s.tactical[b, u] = plot
        s.tac_earned[b, u] = False
        s.tac_sublight[b, u] = plot and s.boxes[b, u, _IMPULSE_BOX] > 0
        if o.speed[b, u] >= 0:
            s.speed[b, u] = o.speed[b, u]
        if mt.controller[u] == robots.ROBOT_SHIP:  # (SCENARIOS §2.5) robots.start_turn
            robots.robot_ship_turn(s.speed, s.boxes, s.w_ready_turn, s.w_armed, s.w_type,
                                   s.w_owner, mt.robot_speed, mt.robot_warp, s.turn[b], b, u)
        if mt.freighter[u]:  # (R1.6) the scenario's speed less the loss for internal damage
            internal = s.internal[b, u]
            lost = 0
            for k in range(mt.n_reductions[u]):
                if internal >= mt.red_at[u, k] and mt.red_loss[u, k] > lost:
                    lost = mt.red_loss[u, k]
            s.speed[b, u] = max(0, mt.start_speed[u] - lost)
        k = s.kind[b, u]
        if k in (K_SHIP, K_FREIGHTER):
            r = event_codes.begin(s.ev, s.ev_count, b, SPEED_SET, s.turn[b], 0)
            s.ev[b, r, 3] = u
            s.ev[b, r, 4] = s.speed[b, u]
            if s.tactical[b, u]:
                r = event_codes.begin(s.ev, s.ev_count, b, TACTICAL_PLOTTED, s.turn[b], 0)
                s.ev[b, r, 3] = u
                s.ev[b, r, 4] = s.speed[b, u]


@nb.njit(cache=True, inline="always")
def move_ships(s, mt, b: int, o) -> None:
    """``engine.procedure._move_ships`` (C1.3) for battle ``b``: the previous positions kept
    for every unit (D3.42); ships, freighters and shuttles that move on this impulse move slower
    first, equal speeds in row order, each with its maneuver (an agent's ``o.maneuver``, NONE
    meaning straight; a robot's pilot, chosen as its move comes: the same as the reference's
    plan, see below)."""
    keep_previous(s, b)
    move_units(s, mt, b, o)


@nb.njit(cache=True, inline="always")
def move_ships_pinned(s, mt, b: int, o, pr) -> None:
    """``move_ships`` with the robots' pilot arguments pinned by the caller (``pr``:
    ``robots.pin_maneuver(s, mt)``)."""
    keep_previous(s, b)
    move_units_pinned(s, mt, b, o, pr)


@nb.njit(cache=True, inline="always")
def keep_previous(s, b: int) -> None:
    """(procedure._move_ships) The positions before Move Ships, for every unit (D3.42)."""
    for u in range(s.kind.shape[1]):
        s.prev_x[b, u] = s.x[b, u]
        s.prev_z[b, u] = s.z[b, u]
        s.prev_facing[b, u] = s.facing[b, u]


@nb.njit(cache=True, inline="always")
def move_units(s, mt, b: int, o) -> None:
    """``move_ships`` after ``keep_previous`` (the monsters move in between, C1.3:
    ``compiled.planet_killer.move_step``)."""
    move_units_pinned(s, mt, b, o, robots.pin_maneuver(s, mt))


@nb.njit(cache=True, inline="always")
def move_units_pinned(s, mt, b: int, o, pr) -> None:
    """``move_units`` with ``pr``, ``robots.pin_maneuver(s, mt)``, pinned by the caller."""
    n_units = s.kind.shape[1]
    status, kind, tactical, holder, speed = s.status, s.kind, s.tactical, s.tractor_holder, \
        s.speed
    chart = mt.chart
    imp = s.impulse[b]
    turn = s.turn[b]
    # No scratch array: the movers go speed by speed, slowest first, each speed in row order.
    # A unit's moving changes only its own row, so whether another unit moves this impulse,
    # and a robot's maneuver (a freighter's reads its own position and facing only; no homing
    # robot flies a ship), come out the same as the reference's plan made before any move.
    sp = -1
    while True:
        nxt = -1
        for u in range(n_units):  # the next slower speed among the movers
            if (_is_mover_a(status, kind, tactical, holder, speed, chart, imp, b, u, False)
                    and not (mt.suicide_rule and s.suicide_launched[b, u])
                    and speed[b, u] > sp and (nxt < 0 or speed[b, u] < nxt)):
                nxt = speed[b, u]
        if nxt < 0:
            return
        sp = nxt
        for u in range(n_units):
            if speed[b, u] != sp or not _is_mover_a(status, kind, tactical, holder, speed,
                                                    chart, imp, b, u, False):
                continue
            if mt.suicide_rule and s.suicide_launched[b, u]:
                continue
            if mt.controller[u] == AGENT:
                m = o.maneuver[b, u]
                m = m if m != NONE else STRAIGHT
            else:
                m = robots.robot_maneuver(pr, b, u)
            _move_unit_a(borrow(s.facing), borrow(s.straight), borrow(s.slip), borrow(s.x),
                         borrow(s.z), borrow(status), borrow(s.captured_by), borrow(s.side),
                         borrow(s.ev), borrow(s.ev_count), turn, imp, borrow(mt.area),
                         mt.area_x0, mt.area_z0, borrow(mt.may_leave), b, u, m)


@nb.njit(cache=True, inline="always")
def move_seeking_weapons(s, mt, b: int, o) -> None:
    """``engine.procedure._move_seeking_weapons`` (F2.0, F2.1, FP1.4) for battle ``b``: drones,
    target drones and plasma torpedoes that move on this impulse (chosen before any of them
    moves), in row order, each with its pilot's maneuver (``robots.maneuver``; a homing drone
    in its target's hex stays; its tie die is ported but never drawn on a hex grid, see
    ``robots.homing_maneuver``). ``o`` is unused (the common phase signature)."""
    move_seeking_weapons_pinned(s, mt, b, o, robots.pin_maneuver(s, mt))


@nb.njit(cache=True, inline="always")
def move_seeking_weapons_pinned(s, mt, b: int, o, pr) -> None:
    """``move_seeking_weapons`` with ``pr``, ``robots.pin_maneuver(s, mt)``, pinned by the
    caller."""
    n_units = s.kind.shape[1]
    status, kind, tactical, holder, speed = s.status, s.kind, s.tactical, s.tractor_holder, \
        s.speed
    chart = mt.chart
    imp = s.impulse[b]
    turn = s.turn[b]
    # in row order, each judged a mover when its turn comes: a move changes only the moving
    # unit's row, so the movers are those the reference picks before any of them moves
    for d in range(n_units):
        if not _is_mover_a(status, kind, tactical, holder, speed, chart, imp, b, d, True):
            continue
        if mt.controller[d] == robots.HOMING:
            m = robots.homing_maneuver_a(borrow(s.target), borrow(s.x), borrow(s.z),
                                         borrow(s.facing), borrow(s.straight), borrow(s.dice),
                                         b, d, mt.planets)
        else:
            m = robots.robot_maneuver(pr, b, d)
        if m != NONE:
            _move_unit_a(borrow(s.facing), borrow(s.straight), borrow(s.slip), borrow(s.x),
                         borrow(s.z), borrow(status), borrow(s.captured_by), borrow(s.side),
                         borrow(s.ev), borrow(s.ev_count), turn, imp, borrow(mt.area),
                         mt.area_x0, mt.area_z0, borrow(mt.may_leave), b, d, m)
