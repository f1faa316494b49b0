"""The robot ship of scenario 4 in compiled code (``engine.robot_ship``, SCENARIOS §2.5).

``robot_tables(setup)`` builds ``RobotShipTables`` (``on`` False where no unit is flown by
``robot-ship``: ``procedure.advance`` then calls nothing here). The robot's Speed
Determination (its speed less one per warp box lost, every weapon armed) is
``robots.robot_ship_turn``, called from ``movement.speed_determination``; this module gives:

* ``plan_moves``: before any unit moves (C1.3: orders are fixed first), each robot ship that
  moves on this impulse picks its maneuver into ``MoveTables.pilot_plan`` (read back by
  ``robots.robot_maneuver``): PURSUE like a robot drone (§2.3, PROPOSAL [P-123]) until its
  Primary Fire Point, then POST-PFP turns toward the side that brings unfired weapons to bear
  (ties to fewer turns, then a die: odd = left); the map-edge override (PROPOSAL [P-124]): a
  move is kept only if some ``LOOKAHEAD`` further moves in its turn mode keep it on the map
  (``_survives``: a depth-first search on the scratch ``stack``, no recursion).
* ``launch_orders``: on impulse 1 one drone at the target from the first rack that may launch
  (``seeking.launch_blockers``: ``observe._rack_ready_a`` and ``observe.launch_open``), written
  into ``o.launch`` before Launch Seeking Weapons (robot rows come after the agents').
* ``fire_orders``: in Fire Direct-Fire, at the PFP (range <= ``pfp_range``), on the turn's last
  impulse, when the target is about to leave the map (PROPOSAL [P-125]) or after the PFP
  (PROPOSAL [P-122]: the mode is read from ``w_fired_turn``), every unfired weapon that bears
  (``observe.weapon_ready`` and ``observe.fire_open``: ``direct_fire.fire_blockers``) fires at
  the target, into ``o.fire``; a Federation robot fires ``photons_per_turn`` photons a turn,
  tube A on odd turns and B on even ones (PROPOSAL [P-121]), the next working one if destroyed.

Not ported (``robot_tables`` refuses): a robot ship beside small craft (their pilots plan in
the same loop of the reference), robot ships carrying other weapons than phasers 1-3,
disruptors, photons and drone racks (the PPD's, ESG's, fusion beam's, phaser-G's and plasma
launchers' robot rules).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sfb_env import tables
from sfb_env.compiled import dice, movement, observe, robots
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.robots import DX, DZ, STRAIGHT, TURN_LEFT, TURN_RIGHT
from sfb_env.engine import robot_ship as ref_robot
from sfb_env.engine.types import ACTIVE, WeaponType

LOOKAHEAD = ref_robot.LOOKAHEAD  # moves the map-edge check looks ahead
_DRONE_RACK = int(WeaponType.DRONE_RACK)
_PHOTON = int(WeaponType.PHOTON)
_ALLOWED = {int(WeaponType.PH1), int(WeaponType.PH2), int(WeaponType.PH3),
            int(WeaponType.DISRUPTOR), _PHOTON, _DRONE_RACK}

RobotShipTables = namedtuple("RobotShipTables", (
    "on",  # bool: some unit is flown by robot-ship
    "robot",  # (U,) bool flown by robot-ship
    "target",  # (U,) int64 the configured target row (robots.robot-ship.target), -1 none
    "pfp_range", "photons_per_turn", "ipt",
    "turn_mode",  # (U, 33) int64 (C3.2) hexes straight before a turn, by speed
    "direct", "n_direct",  # (U, maxW) non-rack weapon rows of each robot (row order), count
    "photons", "n_photons",  # (U, maxW) photon tube rows (row order), count
    "racks", "n_racks",  # (U, maxW) drone rack rows, count
    "launch_limit",  # (U,) int64 (FD4.21) drones a turn from all racks, -1 none
    "stack",  # (LOOKAHEAD + 1, 5) int64 scratch of the map-edge look-ahead
))


def robot_tables(setup) -> RobotShipTables:
    """The robot ships' tables of ``setup``; raises ``NotImplementedError`` on what is not
    ported (module docstring)."""
    st = setup.start_state
    controllers = list(st.controllers)
    n = len(controllers)
    robot = np.array([c == ref_robot.CONTROLLER for c in controllers], dtype=np.bool_)
    cfg = dict(setup.scenario.robots.get(ref_robot.CONTROLLER, {}) or {})
    on = bool(robot.any())
    if on and setup.rules.small_craft_in_play:
        raise NotImplementedError("compiled robot ship: beside small craft")
    rows = setup.weapon_rows
    width = max([len(r) for r in rows] + [1])
    direct = np.full((n, width), -1, np.int64)
    photons = np.full((n, width), -1, np.int64)
    racks = np.full((n, width), -1, np.int64)
    n_direct = np.zeros(n, np.int64)
    n_photons = np.zeros(n, np.int64)
    n_racks = np.zeros(n, np.int64)
    w_type = np.asarray(st.w_type)
    for u in np.flatnonzero(robot):
        for w in rows[u]:
            kind = int(w_type[w])
            if kind not in _ALLOWED:
                raise NotImplementedError(
                    f"compiled robot ship: {WeaponType(kind).name} on a robot ship")
            if kind == _DRONE_RACK:
                racks[u, n_racks[u]] = w
                n_racks[u] += 1
                continue
            direct[u, n_direct[u]] = w
            n_direct[u] += 1
            if kind == _PHOTON:
                photons[u, n_photons[u]] = w
                n_photons[u] += 1
    name = cfg.get("target")
    target = np.full(n, -1, np.int64)
    if name:
        t = list(setup.unit_ids).index(name) if name in setup.unit_ids else -1
        target[robot] = t
    turn_mode = np.ones((n, 33), np.int64)
    limit = np.full(n, -1, np.int64)
    for u, ship in enumerate(setup.ship_classes):
        if setup.turn_mode_chart[u] != "seeking":
            chart = tables.turn_mode_chart(setup.turn_mode_chart[u])
            turn_mode[u, :len(chart)] = chart
        lim = getattr(ship, "drone_launch_limit", None) if ship is not None else None
        limit[u] = -1 if lim is None else int(lim)
    return RobotShipTables(
        on=on, robot=robot, target=target,
        pfp_range=int(cfg.get("pfp_range", ref_robot.DEFAULT_PFP_RANGE)),
        photons_per_turn=int(cfg.get("photons_per_turn", 1)),
        ipt=int(st.impulses_per_turn), turn_mode=turn_mode, direct=direct, n_direct=n_direct,
        photons=photons, n_photons=n_photons, racks=racks, n_racks=n_racks,
        launch_limit=limit, stack=np.zeros((LOOKAHEAD + 1, 5), np.int64))


# ---------------------------------------------------------------------- state questions


@kernel(_nrt=False, error_model="numpy")
def _target(s, rt, b, u):
    """``robot_ship.target_of``: the unit's own target, else the configured one."""
    t = s.target[b, u]
    return t if t >= 0 else rt.target[u]


@kernel(_nrt=False, error_model="numpy")
def _past_pfp(s, rt, b, u):
    """``robot_ship.past_pfp``: some non-rack weapon fired this turn (POST-PFP mode)."""
    for k in range(rt.n_direct[u]):  # noqa: SIM110 (a plain loop for numba)
        if s.w_fired_turn[b, rt.direct[u, k]] == s.turn[b]:
            return True
    return False


@kernel(_nrt=False, error_model="numpy")
def _photon_allowed(s, rt, b, u, w):
    """``w in robot_ship._photons_allowed``: tube A on odd turns, B on even
    (PROPOSAL [P-121]), the next working tube if destroyed, ``photons_per_turn`` a turn
    (§2.5)."""
    n = rt.n_photons[u]
    turn = s.turn[b]
    fired = 0
    for k in range(n):
        if s.w_fired_turn[b, rt.photons[u, k]] == turn:
            fired += 1
    left = rt.photons_per_turn - fired
    if left <= 0:
        return False
    rot = (turn - 1) % n
    count = 0
    for k in range(n):
        tube = rt.photons[u, (rot + k) % n]
        if s.w_destroyed[b, tube] or not s.w_enabled[b, tube]:
            continue
        count += 1
        if count > left:
            return False
        if tube == w:
            return True
    return False


@kernel(_nrt=False, error_model="numpy")
def _unfired(s, rt, b, u, w):
    """``w in robot_ship.unfired``: a working direct-fire weapon not fired this turn (a
    photon only within the turn's allowance)."""
    if not s.w_enabled[b, w] or s.w_destroyed[b, w] or s.w_fired_turn[b, w] == s.turn[b]:
        return False
    return s.w_type[b, w] != _PHOTON or _photon_allowed(s, rt, b, u, w)


@kernel(_nrt=False, error_model="numpy")
def _bears(s, ot, b, w, t):
    """``direct_fire.fire_blockers(battle, w, [t])[0] is None`` (§2.5 "bears")."""
    return observe.weapon_ready(s, ot, b, w) and observe.fire_open(s, ot, b, w, t)


# ---------------------------------------------------------------------- movement


@kernel(_nrt=False, error_model="numpy")
def _survives(mt, stack, x, z, f, straight, mode):
    """``robot_ship.survives``: some ``LOOKAHEAD`` legal moves (straight first; a turn once
    ``straight`` reaches the turn mode, C3.2) keep a ship at (x, z) facing ``f`` on the map.
    Depth-first on ``stack`` rows (x, z, facing, straight, next option)."""
    top = 0
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3], stack[0, 4] = x, z, f, straight, 0
    while top >= 0:
        if top == LOOKAHEAD:
            return True
        opt = stack[top, 4]
        options = 3 if stack[top, 3] >= mode else 1
        if opt >= options:
            top -= 1
            continue
        stack[top, 4] = opt + 1
        turn = 0 if opt == 0 else (-1 if opt == 1 else 1)
        nf = (stack[top, 2] + turn + 6) % 6
        nx, nz = stack[top, 0] + DX[nf], stack[top, 1] + DZ[nf]
        if robots.in_area(mt, nx, nz):
            ns = 1 if turn != 0 else stack[top, 3] + 1
            top += 1
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = nx, nz, nf, ns
            stack[top, 4] = 0
    return False


@kernel(_nrt=False, error_model="numpy")
def _option(want, k):
    """The k-th move ``edge_safe_move`` tries with turns allowed: ``want``, the other turn,
    straight, right."""
    if k == 0:
        return want
    if k == 1:
        return TURN_RIGHT if want == TURN_LEFT else TURN_LEFT
    return STRAIGHT if k == 2 else TURN_RIGHT


@kernel(_nrt=False, error_model="numpy")
def edge_safe_move(mt, stack, x, z, f, straight, mode, want):
    """``robot_ship.edge_safe_move`` (§2.5 map edge, PROPOSAL [P-124]): ``want`` if it keeps
    the ship able to fly on for ``LOOKAHEAD`` moves, else the other turn, then straight, then
    right; failing all, any of them that stays on the map now (STRAIGHT if none)."""
    can_turn = straight >= mode
    n = 4 if can_turn else 1
    for k in range(n):
        m = _option(want, k) if can_turn else STRAIGHT
        turn = -1 if m == TURN_LEFT else (1 if m == TURN_RIGHT else 0)
        nf = (f + turn + 6) % 6
        nx, nz = x + DX[nf], z + DZ[nf]
        if robots.in_area(mt, nx, nz) and _survives(
                mt, stack, nx, nz, nf, 1 if m != STRAIGHT else straight + 1, mode):
            return m
    for k in range(n):
        m = _option(want, k) if can_turn else STRAIGHT
        turn = -1 if m == TURN_LEFT else (1 if m == TURN_RIGHT else 0)
        nf = (f + turn + 6) % 6
        if robots.in_area(mt, x + DX[nf], z + DZ[nf]):
            return m
    return STRAIGHT


@kernel(_nrt=False, error_model="numpy")
def _side_best(s, rt, b, u, x, z, f, tx, tz, sign):
    """(§2.5 POST-PFP 2) For the turns one side (``sign`` -1 left, 1 right): the unfired
    weapons whose arcs hold the target after the fewest turns that bring any (1..3), as
    count * 4 + (3 - turns): the tuple ``(count, -turns)`` of ``bring_to_bear`` in order."""
    for n in range(1, 4):
        bits = observe._arc_bits(x, z, (f + sign * n + 12) % 6, tx, tz)
        count = 0
        for k in range(rt.n_direct[u]):
            w = rt.direct[u, k]
            if _unfired(s, rt, b, u, w) and (bits & s.w_arcs[b, w]) != 0:
                count += 1
        if count > 0:
            return count * 4 + (3 - n)
    return 0  # (0, -3)


@kernel(_nrt=False, error_model="numpy")
def maneuver(s, mt, ot, rt, b, u):
    """``robot_ship.maneuver`` (§2.5): PURSUE, or POST-PFP turning toward unfired weapons,
    with the map-edge override."""
    t = _target(s, rt, b, u)
    speed = s.speed[b, u]
    mode = rt.turn_mode[u, max(speed, 1)]
    straight = s.straight[b, u]
    can_turn = straight >= mode  # (C3.2)
    x, z, f = s.x[b, u], s.z[b, u], s.facing[b, u]
    want = STRAIGHT
    if t >= 0 and s.status[b, t] == ACTIVE:
        tx, tz = s.x[b, t], s.z[b, t]
        if not _past_pfp(s, rt, b, u):  # (PURSUE 1, §2.3, PROPOSAL [P-123])
            fl, fr = (f + 5) % 6, (f + 1) % 6
            ahead = robots.distance(x + DX[f], z + DZ[f], tx, tz)
            left = robots.distance(x + DX[fl], z + DZ[fl], tx, tz)
            right = robots.distance(x + DX[fr], z + DZ[fr], tx, tz)
            tie = can_turn and left < ahead and left == right
            roll = dice.die(s.dice, b) if tie else 1
            want = robots.pursuit_choice(ahead, left, right, can_turn, roll)
        else:  # (POST-PFP 2) no unfired weapon bears: turn toward them
            unfired = 0
            bearing = False
            for k in range(rt.n_direct[u]):
                w = rt.direct[u, k]
                if _unfired(s, rt, b, u, w):
                    unfired += 1
                    if _bears(s, ot, b, w, t):
                        bearing = True
            if unfired > 0 and not bearing and can_turn:
                lb = _side_best(s, rt, b, u, x, z, f, tx, tz, -1)
                rb = _side_best(s, rt, b, u, x, z, f, tx, tz, 1)
                if lb == rb:
                    if lb != 0:
                        want = TURN_LEFT if dice.die(s.dice, b) % 2 else TURN_RIGHT
                else:
                    want = TURN_LEFT if lb > rb else TURN_RIGHT
    return edge_safe_move(mt, rt.stack, x, z, f, straight, mode, want)


@kernel(_nrt=False, error_model="numpy")
def plan_moves(s, mt, ot, rt, b):
    """(``procedure._move_ships``' plan) Each robot ship moving on this impulse picks its
    maneuver into ``mt.pilot_plan`` before any unit moves, in row order (its tie dice in the
    reference's order). The previous positions are those ``_move_ships`` sets first (D3.42:
    the fire predicate reads them at range 0)."""
    n = s.kind.shape[1]
    for u in range(n):
        s.prev_x[b, u] = s.x[b, u]
        s.prev_z[b, u] = s.z[b, u]
        s.prev_facing[b, u] = s.facing[b, u]
    imp = s.impulse[b]
    for u in range(n):
        if rt.robot[u] and movement._is_mover_a(s.status, s.kind, s.tactical,
                                                s.tractor_holder, s.speed, mt.chart, imp, b,
                                                u, False):
            mt.pilot_plan[u] = maneuver(s, mt, ot, rt, b, u)


# ---------------------------------------------------------------------- fire and launch


@kernel(_nrt=False, error_model="numpy")
def _about_to_exit(s, mt, rt, b, t):
    """(§2.5 override, PROPOSAL [P-125]) The target moves next impulse
    (``movement.moves_next``), the hex straight on is off the map and its turn mode allows no
    turn."""
    if s.status[b, t] != ACTIVE or s.tactical[b, t]:
        return False
    imp = s.impulse[b]
    nxt = 1 if (imp == 0 or imp == rt.ipt) else imp + 1
    if not mt.chart[s.speed[b, t], nxt - 1]:
        return False
    f = s.facing[b, t]
    if robots.in_area(mt, s.x[b, t] + DX[f], s.z[b, t] + DZ[f]):
        return False
    return s.straight[b, t] < rt.turn_mode[t, max(s.speed[b, t], 1)]


@kernel(_nrt=False, error_model="numpy")
def fire_orders(s, mt, ot, rt, b, fire_out):
    """``robot_ship.fire_orders`` of every active robot ship, row order, into
    ``fire_out[b, w]`` (the target row)."""
    for u in range(s.kind.shape[1]):
        if not rt.robot[u] or s.status[b, u] != ACTIVE:
            continue
        t = _target(s, rt, b, u)
        if t < 0 or s.status[b, t] != ACTIVE:
            continue
        past = _past_pfp(s, rt, b, u)
        dist = robots.distance(s.x[b, u], s.z[b, u], s.x[b, t], s.z[b, t])
        last = s.impulse[b] == rt.ipt
        if not (past or dist <= rt.pfp_range or last
                or _about_to_exit(s, mt, rt, b, t)):  # (§2.5 fire points)
            continue
        for k in range(rt.n_direct[u]):
            w = rt.direct[u, k]
            if _unfired(s, rt, b, u, w) and _bears(s, ot, b, w, t):
                fire_out[b, w] = t


@kernel(_nrt=False, error_model="numpy")
def launch_orders(s, ot, rt, b, launch_out):
    """``robot_ship.launch_orders`` (§2.5): on impulse 1 each active robot ship launches one
    drone at its target from its first rack that may (``seeking.launch_blockers``), into
    ``launch_out[b, rack]``."""
    if s.impulse[b] != 1:
        return
    for u in range(s.kind.shape[1]):
        if not rt.robot[u] or s.status[b, u] != ACTIVE:
            continue
        t = _target(s, rt, b, u)
        if t < 0:
            continue
        for k in range(rt.n_racks[u]):
            r = rt.racks[u, k]
            if observe._rack_ready_a(
                    s.status, s.cloaked, s.cloaked_before, s.w_owner, s.w_type, s.w_enabled,
                    s.w_destroyed, s.w_ammo, s.w_fired_turn, s.w_last_fired, s.w_armed,
                    ot.plasma_rows, s.turn[b], s.impulse[b], ot.ipt, ot.quarter_turn,
                    ot.launching, rt.launch_limit[u], b, r) and observe.launch_open(s, b, r, t):
                launch_out[b, r] = t
                break
