"""Planets in compiled code (``engine.planets``, P2.0; CTH-DATA §8.9; the scenario-9 survivors,
CTH-DATA §12.4 PROPOSAL [P-111]).

``planet_tables(setup)`` builds ``PlanetTables``: the planet hexes (static: a planet never
moves) as a small grid over their bounding box (``in_planet_hex`` is one lookup), their list
for the line-of-fire test, and per unit row the side whose survivors a planet holds (G8.0
consent). The kernels here are the rule area's predicates and steps, called where
``PlanetTables.on``:

* ``line_blocked`` / ``fire_blocked`` (P2.0): no fire into, out of or through a planet hex
  (``crosses_hex``: the line between hex centres through the open hexagon; along an edge or
  through a corner it is not blocked), so none at a planet either (PROPOSAL [P-110]: nothing in
  a planet hex fires out of it);
* ``entering_bits`` (P2.0): the open moves of a ship that would enter a planet hex, closed
  unless that leaves it no move (PROPOSAL [P-036]); ``avoid`` (PROPOSAL [P-065]): homing
  seeking weapons count a planet hex as out of reach;
* ``movement_step`` (P2.0): after every unit moved, ships in a planet hex crash
  (``PlanetCrash``, ``Destroyed``), seeking weapons are lost;
* ``landed`` (P2.0): an administrative shuttle in play in a planet hex cannot be hit, nor
  targeted by a seeking weapon;
* ``lift_survivors`` (CTH-DATA §12.4 [P-111]): a shuttle landed on the planet it was sent at
  takes one crew unit aboard (``CrewLifted`` "shuttle"), and a shuttle with survivors lands
  aboard its carrier when the landing limits allow (``CrewLifted`` "landed"); its pilot flies
  it home (``homing``, ``compiled.small_craft.pilot_maneuver``);
* ``lift_consent`` (G8.0): survivors go only aboard a unit of their own side.

Proved in lockstep with the reference (``tests/test_compiled_planets.py``).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env import hexmap
from sfb_env.compiled import event_codes
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine import planets as ref
from sfb_env.engine import seeking
from sfb_env.engine.scenario import PLANET_CLASS
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    EXPENDED,
    K_DRONE,
    K_FREIGHTER,
    K_PLANET,
    K_PLASMA,
    K_SHIP,
    K_SHUTTLE,
    K_TARGET_DRONE,
)

PLANET_CRASH = event_codes.CODE["PlanetCrash"]
DESTROYED_EVENT = event_codes.CODE["Destroyed"]
CREW_LIFTED = event_codes.CODE["CrewLifted"]
HOW_SHUTTLE = event_codes.word("how", "shuttle")
HOW_LANDED = event_codes.word("how", "landed")
AVOID = seeking.AVOID  # ([P-065]) a homing move into a planet hex counts as this far
_ROBOTS_REFUSED = {"robot-ship", "convoy-freighter", "stranded"}
ANY_SIDE = -1  # ``PlanetTables.crew_side``: no consent needed (not a planet, or no crew side)

DX, DZ = hexmap.DIR_DX, hexmap.DIR_DZ  # directions A..F
_SQ3 = math.sqrt(3.0)
_EPS = ref._EPS
_APOTHEM = ref._APOTHEM
_NORMALS = np.array(ref._NORMALS, dtype=np.float64)
_VERTS = np.array(ref._VERTS, dtype=np.float64)

PlanetTables = namedtuple("PlanetTables", (
    "on",  # bool rules.planets_in_play
    "cell",  # (NX, NZ) int64 the planet row at axial (x0 + i, z0 + j), -1 none
    "x0", "z0",  # the grid's origin
    "px", "pz",  # (P,) int64 the planet hexes (axial), in row order
    "crew_side",  # (U,) int64 the side of the survivors on a planet row (G8.0), ANY_SIDE
))


def planet_tables(setup) -> PlanetTables:
    """The planets of ``setup`` (none, ``on`` False, where ``rules.planets_in_play`` is off)."""
    st = setup.start_state
    n = len(setup.unit_ids)
    crew_side = np.full(n, ANY_SIDE, np.int64)
    rows = [u for u in range(n) if int(st.kind[u]) == K_PLANET]
    on = bool(setup.rules.planets_in_play) and bool(rows)
    if not on:
        return PlanetTables(False, np.full((1, 1), -1, np.int64), 0, 0,
                            np.zeros(0, np.int64), np.zeros(0, np.int64), crew_side)
    rules = setup.rules
    for flag, why in (("ppd_in_play", "a PPD's wave-lock (E11.546)"),
                      ("esg_in_play", "an ESG field meeting a planet (G23.65)"),
                      ("sideslip", "sideslips into a planet hex (C4)"),
                      ("tactical_maneuvers", "tactical maneuvers (C5)"),
                      ("may_not_leave", "may_leave false (scenario 8)")):
        if getattr(rules, flag):
            raise NotImplementedError(f"compiled planets (P2.0): beside {why} not ported")
    robots = sorted(set(st.controllers) & _ROBOTS_REFUSED)
    if robots:
        raise NotImplementedError(f"compiled planets (P2.0): beside the robots {robots} (their "
                                  "moves into a planet hex) not ported")
    px = np.array([int(st.x[u]) for u in rows], np.int64)
    pz = np.array([int(st.z[u]) for u in rows], np.int64)
    x0, z0 = int(px.min()), int(pz.min())
    cell = np.full((int(px.max()) - x0 + 1, int(pz.max()) - z0 + 1), -1, np.int64)
    for u, x, z in zip(rows, px, pz, strict=True):
        cell[x - x0, z - z0] = u
    for u, spec in enumerate(setup.scenario.units):
        if spec.unit_class == PLANET_CLASS and spec.crew_side is not None:
            crew_side[u] = setup.side_index[spec.crew_side]
    return PlanetTables(True, cell, x0, z0, px, pz, crew_side)


# ---------------------------------------------------------------------- queries


@nb.njit(cache=True, inline="always")
def in_planet_hex(pt, x, z) -> bool:
    """Whether axial hex (x, z) is a planet hex."""
    i, j = x - pt.x0, z - pt.z0
    return 0 <= i < pt.cell.shape[0] and 0 <= j < pt.cell.shape[1] and pt.cell[i, j] >= 0


@nb.njit(cache=True, inline="always")
def landed(pt, kind, status, x, z, b, u) -> bool:
    """(P2.0) An administrative shuttle in play in a planet hex: landed, cannot be hit."""
    return (pt.on and kind[b, u] == K_SHUTTLE and status[b, u] == ACTIVE
            and in_planet_hex(pt, x[b, u], z[b, u]))


@nb.njit(cache=True, inline="always")
def _xy(x, z):
    """``engine.planets._xy``: a hex centre in the plane."""
    xf, zf = float(x), float(z)
    return 1.5 * xf, _SQ3 * (zf + xf / 2)


@kernel(_nrt=False, error_model="numpy")
def crosses_hex(x0, z0, x1, z1, hx, hz) -> bool:
    """``engine.planets.crosses_hex`` for one line: the segment between the centres of (x0, z0)
    and (x1, z1) passes through the inside of hex (hx, hz) (the same float operations, in the
    same order, as the reference's separating-axis test)."""
    ax, ay = _xy(x0, z0)
    bx, by = _xy(x1, z1)
    cx, cy = _xy(hx, hz)
    for k in range(3):  # the hexagon's own axes: the projections overlap strictly
        nx, ny = _NORMALS[k, 0], _NORMALS[k, 1]
        pa, pb, pc = ax * nx + ay * ny, bx * nx + by * ny, cx * nx + cy * ny
        if not max(pa, pb) > pc - _APOTHEM + _EPS:
            return False
        if not min(pa, pb) < pc + _APOTHEM - _EPS:
            return False
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy)
    if length == 0:
        return True
    mx, my = -dy / length, dx / length
    reach = 0.0
    for k in range(6):
        reach = max(reach, abs(mx * _VERTS[k, 0] + my * _VERTS[k, 1]))
    off = abs((ax - cx) * mx + (ay - cy) * my)
    return off < reach - _EPS


@kernel(_nrt=False, error_model="numpy")
def line_blocked(pt, x0, z0, x1, z1) -> bool:
    """(P2.0) A planet hex blocks the line between hexes (x0, z0) and (x1, z1): either end in
    a planet hex, or the line through a planet hex's inside."""
    if not pt.on:
        return False
    if in_planet_hex(pt, x1, z1) or in_planet_hex(pt, x0, z0):
        return True
    for p in range(pt.px.shape[0]):  # noqa: SIM110 (a plain loop for numba)
        if crosses_hex(x0, z0, x1, z1, pt.px[p], pt.pz[p]):
            return True
    return False


@nb.njit(cache=True, inline="always")
def fire_blocked(pt, x, z, b, owner, t) -> bool:
    """(P2.0, ``planets.fire_blocked``) no fire from ``owner`` at ``t`` because of a planet:
    the planet itself (in its own hex), into, out of or through a planet hex."""
    return pt.on and line_blocked(pt, x[b, owner], z[b, owner], x[b, t], z[b, t])


@kernel(_nrt=False, error_model="numpy")
def entering_bits(pt, x, z, facing, closed) -> int:
    """(P2.0, ``planets.maneuver_blockers``) Maneuver bits (straight 1, left 2, right 3) of the
    moves open in ``closed`` (a bit set: closed) that enter a planet hex; 0 where every open
    move does ([P-036]: the ship keeps them, enters and is destroyed) or it does not move."""
    if not pt.on or (closed >> 1) & 1:
        return 0
    open_moves = 0
    entering = 0
    for m in range(1, 4):
        if (closed >> m) & 1:
            continue
        open_moves += 1
        f = facing if m == 1 else (facing + 5) % 6 if m == 2 else (facing + 1) % 6
        if in_planet_hex(pt, x + DX[f], z + DZ[f]):
            entering |= 1 << m
    n_entering = 0
    for m in range(1, 4):
        n_entering += (entering >> m) & 1
    return entering if 0 < n_entering < open_moves else 0


@nb.njit(cache=True, inline="always")
def avoid(pt, x, z, d) -> int:
    """([P-065]) distance ``d`` of a homing move into hex (x, z), AVOID in a planet hex."""
    return AVOID if pt.on and in_planet_hex(pt, x, z) else d


@nb.njit(cache=True, inline="always")
def lift_consent(pt, side, b, unit, planet) -> bool:
    """(G8.0, ``planets.consent_blocker`` is None) the survivors on ``planet`` go aboard
    ``unit`` (a planet with no crew side: anyone's)."""
    c = pt.crew_side[planet]
    return c == ANY_SIDE or side[b, unit] == c


@nb.njit(cache=True, inline="always")
def homing(kind, crew_units, status, carrier, b, craft) -> bool:
    """(Scenario 9, [P-112]) the pilot flies a shuttle with survivors home to land."""
    return (kind[b, craft] == K_SHUTTLE and crew_units[b, craft] > 0
            and status[b, carrier] == ACTIVE)


# ---------------------------------------------------------------------- steps


@kernel(_nrt=False, error_model="numpy")
def movement_step(pt, kind, status, x, z, suicide_launched, suicide_rule, ev, ev_count, turn,
                  imp, b) -> None:
    """(P2.0, ``planets.movement_step``) After every unit moved: ships and freighters in a
    planet hex are destroyed, seeking weapons (and suicide shuttles, J2.22) there are lost,
    in row order."""
    for u in range(kind.shape[1]):
        if status[b, u] != ACTIVE or not in_planet_hex(pt, x[b, u], z[b, u]):
            continue
        k = kind[b, u]
        ship = k in (K_SHIP, K_FREIGHTER)
        seeking = (k in (K_DRONE, K_TARGET_DRONE, K_PLASMA)
                   or (suicide_rule and suicide_launched[b, u]))
        if not (ship or seeking):
            continue
        if ship:
            status[b, u] = DESTROYED
        else:
            status[b, u] = EXPENDED if k != K_TARGET_DRONE else DESTROYED
        r = event_codes.begin(ev, ev_count, b, PLANET_CRASH, turn, imp)
        ev[b, r, 3] = u
        ev[b, r, 4] = x[b, u]
        ev[b, r, 5] = z[b, u]
        if ship:
            r = event_codes.begin(ev, ev_count, b, DESTROYED_EVENT, turn, imp)
            ev[b, r, 3] = u


@nb.njit(cache=True, inline="always")
def crew_lifted(ev, ev_count, turn, imp, b, unit, source, how) -> None:
    r = event_codes.begin(ev, ev_count, b, CREW_LIFTED, turn, imp)
    ev[b, r, 3] = unit
    ev[b, r, 4] = source
    ev[b, r, 5] = how


@kernel(_nrt=False, error_model="numpy")
def survivors_killed(status, crew_units, b) -> bool:
    """(``planets.survivors_killed``) crew units aboard a destroyed unit."""
    for u in range(status.shape[1]):  # noqa: SIM110 (a plain loop for numba)
        if status[b, u] == DESTROYED and crew_units[b, u] > 0:
            return True
    return False
