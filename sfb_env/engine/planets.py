"""Planets (P2.0; CTH-DATA §8.9; scenarios 9 and 11) and the survivors shuttles lift from them.

A planet is a unit row (``UnitKind.PLANET``) at a fixed hex, from a scenario unit with
``kind: planet`` (no class, side, facing or controller; optional ``crew_units``: survivors on
it, 10 people each, G8.0). It belongs to no side (``st.side`` -1), never moves, is always in
play, and takes damage into ``st.damage`` (the Planet Killer scores on it, scenario 11;
``engine.planet_killer``). It shows in every player's target slots (it is nobody's friend), so
a ship can send a shuttle at it; no weapon of a ship may be fired at it.

Rules applied here (P2.0 as summarised in CTH-DATA §8.9):

* ships may not enter the planet hex: ``maneuver_blockers`` closes every maneuver of a ship or
  freighter that would enter it (masks and ``Battle.validate`` through
  ``movement.maneuver_blockers``). PROPOSAL [P-036]: a ship left with no other move (turn mode not
  met, planet dead ahead) keeps the move that enters, and is destroyed;
* ships and seeking weapons entering the planet hex are destroyed (``movement_step``, after
  every unit moved: a ship towed in or left no other move, a seeking weapon forced in by its
  straight first move after launch). PROPOSAL [P-065]: a homing seeking weapon (drone, plasma, bomb
  shuttle; ``seeking.robot_drone_maneuver``) never enters a planet hex it can avoid, and no
  seeking weapon is launched at a shuttle landed on a planet;
* ships may not fire into or through the planet hex (``fire_blockers``): the line between hex
  centres is blocked when it crosses the inside of a planet hex; a line exactly along the
  planet hex's edge (or through its corner) is not. PROPOSAL [P-110]: nothing in a planet hex fires
  out of it either (a landed shuttle does not fire);
* shuttles may enter the hex and land: an administrative shuttle in a planet hex is landed and
  cannot be hit (nothing fires into the hex; G23.515 no ESG damage on planets);
* a PPD's wave-lock is broken by a planet in the line of fire (E11.546, ``ppd_block_rule``);
* an ESG field striking a planet collapses to 0, the planet untouched (G23.65; the field
  resolver ``esg.strike`` has the planet contact kind, ``esg_field`` hands planets to it).

Survivors (scenario 9 special; CTH-DATA §12.4 PROPOSAL [P-111]): an administrative shuttle sent at a
planet (its target is the planet row) lands on entering the hex; at the end of that impulse one
crew unit on the planet boards it (capacity 1 crew unit, CTH-DATA §8.6), and the built-in pilot
flies it home (``homing``) and lands it aboard its carrier under the usual landing limits (ship
speed 6 or less, J1.0, ``small_craft.land_blocker``); the crew unit then counts aboard the
carrier. A unit destroyed with crew units aboard kills them (they stay on the destroyed row:
``survivors_killed``). Lifting by transporter is engineer B's ``engine.transporters``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import events as ev
from sfb_env.engine import types
from sfb_env.engine.scenario import PLANET_CLASS as PLANET_CLASS
from sfb_env.engine.scenario import PLANET_CONTROLLER as CONTROLLER  # noqa: F401 (re-export)
from sfb_env.engine.scenario import PLANET_KEYS as PLANET_KEYS
from sfb_env.engine.scenario import parse_planet as parse_planet
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    K_DRONE,
    K_FREIGHTER,
    K_PLANET,
    K_PLASMA,
    K_SHIP,
    K_SHUTTLE,
    K_TARGET_DRONE,
    Maneuver,
    Status,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

NO_SIDE = -1  # (P2.0) a planet belongs to no side
SHIP_KINDS = (K_SHIP, K_FREIGHTER)
SEEKING_KINDS = (K_DRONE, K_TARGET_DRONE, K_PLASMA)
LANDED_RULE = "P2.0 a shuttle landed on a planet cannot be hit"  # fire, drones, suicide
CREW_CAPACITY = 1  # (CTH-DATA §8.6) a shuttle carries 2 boarding parties or 1 crew unit
_SQ3 = math.sqrt(3.0)
_EPS = 1e-9
# (flat-topped hexes, circumradius 1; hexmap) the three edge normals and the apothem
_NORMALS = np.array([[math.cos(a), math.sin(a)] for a in (math.pi / 6, math.pi / 2,
                                                          5 * math.pi / 6)])
_APOTHEM = _SQ3 / 2
_VERTS = np.array([[math.cos(k * math.pi / 3), math.sin(k * math.pi / 3)] for k in range(6)])
_STEPS = {Maneuver.STRAIGHT: 0, Maneuver.TURN_LEFT: -1, Maneuver.TURN_RIGHT: 1}
_SLIPS = {4: -1, 5: 1}  # Maneuver.SIDESLIP_LEFT / RIGHT (C4.2): facing kept


# ---------------------------------------------------------------------- scenario


def planet_row(x: int, z: int) -> dict[str, Any]:
    """The ``Battle._build`` row of a planet at axial (x, z): no side, no speed."""
    return dict(side=NO_SIDE, x=x, z=z, facing=0, speed=0, target=None, kind=K_PLANET)


def init_state(battle: Battle) -> dict[str, Any]:
    """(Scenario 9 special) The survivors: each planet's ``crew_units`` from the scenario.

    Returns the static tables of the setup: ``planet_rows`` (planets never move),
    ``planet_hexes`` (axial) and ``planet_crew_side`` (planet row -> side index of its crew
    units, G8.0 consent)."""
    st = battle.state
    rows = np.flatnonzero(st.kind == K_PLANET)
    crew_side: dict[int, int] = {}
    for u, spec in enumerate(battle.scenario.units):
        if spec.unit_class == PLANET_CLASS:
            st.crew_units[u] = int(spec.crew_units)
            if spec.crew_side is not None:
                crew_side[u] = battle.side_index[spec.crew_side]
    return {"planet_rows": rows, "planet_hexes": [(int(st.x[p]), int(st.z[p])) for p in rows],
            "planet_crew_side": crew_side}


# ---------------------------------------------------------------------- queries


def planet_rows(battle: Battle) -> np.ndarray:
    """Unit rows of the planets (static)."""
    return battle.planet_rows


def in_planet_hex(battle: Battle, x, z) -> np.ndarray:
    """Whether each axial hex (x, z) is a planet hex."""
    x, z = np.atleast_1d(np.asarray(x)), np.atleast_1d(np.asarray(z))
    out = np.zeros(x.shape, dtype=bool)
    for px, pz in battle.planet_hexes:
        out |= (x == px) & (z == pz)
    return out


def landed(battle: Battle) -> np.ndarray:
    """(U,) administrative shuttles in play in a planet hex: landed, cannot be hit (P2.0)."""
    st = battle.state
    return (st.kind == K_SHUTTLE) & (st.status == ACTIVE) & in_planet_hex(battle, st.x, st.z)


def _xy(x, z) -> tuple[np.ndarray, np.ndarray]:
    """Hex centres in the plane (flat-topped hexes of circumradius 1, y down)."""
    x = np.asarray(x, dtype=np.float64)
    z = np.asarray(z, dtype=np.float64)
    return 1.5 * x, _SQ3 * (z + x / 2)


def crosses_hex(x0, z0, x1, z1, hx: int, hz: int) -> np.ndarray:
    """Whether the straight line between the centres of hexes (x0, z0) and (x1, z1) (arrays)
    passes through the inside of hex (hx, hz): a line along its edge or through a corner only
    does not (P2.0). Separating-axis test of the segment against the open hexagon."""
    x0, z0, x1, z1 = np.broadcast_arrays(*(np.atleast_1d(np.asarray(v, dtype=np.float64))
                                           for v in (x0, z0, x1, z1)))
    ax, ay = _xy(x0, z0)
    bx, by = _xy(x1, z1)
    cx, cy = _xy(hx, hz)
    inside = np.ones(ax.shape, dtype=bool)
    for nx, ny in _NORMALS:  # the hexagon's own axes: the projections overlap strictly
        pa, pb, pc = ax * nx + ay * ny, bx * nx + by * ny, cx * nx + cy * ny
        inside &= np.maximum(pa, pb) > pc - _APOTHEM + _EPS
        inside &= np.minimum(pa, pb) < pc + _APOTHEM - _EPS
    dx, dy = bx - ax, by - ay  # the segment's normal axis: the hexagon must reach past it
    length = np.hypot(dx, dy)
    safe = np.where(length > 0, length, 1.0)
    mx, my = -dy / safe, dx / safe
    reach = np.abs(mx[..., None] * _VERTS[:, 0] + my[..., None] * _VERTS[:, 1]).max(axis=-1)
    off = np.abs((ax - cx) * mx + (ay - cy) * my)
    return inside & ((off < reach - _EPS) | (length == 0))


def line_blocked(battle: Battle, x0, z0, x1, z1) -> np.ndarray:
    """(P2.0) Whether a planet hex blocks the line of fire between hex (x0, z0) and each hex
    (x1, z1): either end in a planet hex, or the line through a planet hex's inside."""
    x1, z1 = np.atleast_1d(np.asarray(x1)), np.atleast_1d(np.asarray(z1))
    out = in_planet_hex(battle, x1, z1) | in_planet_hex(battle, x0, z0)[0]
    for px, pz in battle.planet_hexes:
        out |= crosses_hex(x0, z0, x1, z1, px, pz)
    return out


def _blocked_from(battle: Battle, owner: int) -> np.ndarray:
    """(U,) ``line_blocked`` from ``owner`` to every unit; cached while no unit moves (the
    weapons of one ship share it)."""
    st = battle.state
    key = (st.x.tobytes(), st.z.tobytes())
    cache = st.cache.setdefault("planet_lines", {})  # owner -> (positions key, (U,) blocked)
    hit = cache.get(owner)
    if hit is not None and hit[0] == key:
        return hit[1]
    value = line_blocked(battle, st.x[owner], st.z[owner], st.x, st.z)
    cache[owner] = (key, value)
    return value


def fire_blocked(battle: Battle, owner: int, targets: np.ndarray) -> np.ndarray:
    """(P2.0) Bool per target: no fire from ``owner`` at it because of a planet (the planet
    itself, except by a monster; into, out of or through a planet hex)."""
    st = battle.state
    targets = np.asarray(targets, dtype=np.int64)
    if not len(planet_rows(battle)):
        return np.zeros(len(targets), dtype=bool)
    out = _blocked_from(battle, owner)[targets]
    monster = getattr(types, "K_MONSTER", None)
    if monster is not None and int(st.kind[owner]) == monster:  # (SCENARIOS §2.8) it shoots it
        out &= st.kind[targets] != K_PLANET
    return out


def fire_rule(battle: Battle, owner: int, target: int) -> str:
    """The P2.0 wording for a shot ``fire_blocked`` refuses."""
    st = battle.state
    if st.kind[target] == K_PLANET:
        return "P2.0 ships may not fire at a planet"
    if landed(battle)[target]:
        return LANDED_RULE
    if in_planet_hex(battle, st.x[target], st.z[target])[0]:
        return "P2.0 no fire into the planet hex"
    if in_planet_hex(battle, st.x[owner], st.z[owner])[0]:
        return "P2.0 PROPOSAL: nothing fires out of a planet hex (a landed shuttle does not fire)"  # [P-110]  # noqa: E501
    return "P2.0 the line of fire passes through a planet hex (along its edge would not)"


def ppd_block_rule(battle: Battle, w: int, t: int) -> str | None:
    """(E11.546) A planet in the line of fire breaks PPD ``w``'s wave-lock on ``t``."""
    st = battle.state
    owner = int(st.w_owner[w])
    if len(planet_rows(battle)) and line_blocked(battle, st.x[owner], st.z[owner],
                                                 [st.x[t]], [st.z[t]])[0]:
        return "E11.546"
    return None


# ---------------------------------------------------------------------- movement


def maneuver_blockers(battle: Battle, unit: int, blocked: dict) -> dict:
    """(P2.0) Add to ``blocked`` (a ``movement.maneuver_blockers`` result) every open maneuver
    of a ship or freighter that enters a planet hex; PROPOSAL [P-036]: unless that leaves the moving
    ship no move at all (it then enters and is destroyed, ``movement_step``)."""
    st = battle.state
    if int(st.kind[unit]) not in SHIP_KINDS or not len(planet_rows(battle)):
        return blocked
    if Maneuver.STRAIGHT in blocked:  # the unit does not move on that impulse
        return blocked
    moves = [m for m in battle.maneuvers if m not in blocked
             and (int(m) in _STEPS or int(m) in _SLIPS)]
    entering = {}
    for m in moves:
        turn = _STEPS.get(Maneuver(int(m)), 0)
        slip = _SLIPS.get(int(m), 0)
        facing = (int(st.facing[unit]) + turn + slip) % 6
        nx, nz = hexmap.neighbor_np(st.x[unit], st.z[unit], facing)
        if in_planet_hex(battle, nx, nz)[0]:
            entering[m] = (f"P2.0 ships may not enter the planet hex "
                           f"{battle.area_labels.get((int(nx), int(nz)), '')}".rstrip())
    if entering and len(entering) < len(moves):
        blocked = dict(blocked)
        blocked.update(entering)
    return blocked


def movement_step(battle: Battle) -> None:
    """(P2.0) After every unit moved: ships and seeking weapons in a planet hex are destroyed;
    administrative shuttles there are landed (``landed``)."""
    st = battle.state
    if not len(planet_rows(battle)):
        return
    here = (st.status == ACTIVE) & in_planet_hex(battle, st.x, st.z)
    for u in np.flatnonzero(here):
        kind = int(st.kind[u])
        if kind in SHIP_KINDS:
            st.status[u] = Status.DESTROYED
            battle.log(ev.PlanetCrash(st.turn, st.impulse, battle.unit_ids[u], battle.label(u)))
            battle.log(ev.Destroyed(st.turn, st.impulse, battle.unit_ids[u]))
        elif kind in SEEKING_KINDS or (battle.rules.suicide_shuttles and st.suicide_launched[u]):
            # (P2.0; J2.22) a suicide shuttle flies as a seeking weapon: it is lost too
            st.status[u] = Status.EXPENDED if kind != K_TARGET_DRONE else Status.DESTROYED
            battle.log(ev.PlanetCrash(st.turn, st.impulse, battle.unit_ids[u], battle.label(u)))


# ---------------------------------------------------------------------- survivors


def carried(battle: Battle, craft: int) -> bool:
    """Whether small craft ``craft`` carries crew units (survivors)."""
    return bool(battle.state.crew_units[craft] > 0)


def homing(battle: Battle, craft: int) -> bool:
    """(Scenario 9, PROPOSAL [P-112]) The pilot flies a shuttle with survivors home to land."""
    st = battle.state
    return bool(st.kind[craft] == K_SHUTTLE and st.crew_units[craft] > 0
                and st.status[battle.craft_carrier[craft]] == ACTIVE)


def lift_blocker(battle: Battle, craft: int, planet: int) -> str | None:
    """Why shuttle ``craft`` cannot lift a crew unit from ``planet`` now, or None (CTH-DATA
    §12.4 PROPOSAL [P-111], §8.6): a shuttle in play, landed in the planet's hex, sent at it,
    empty (1 crew unit at most), and survivors left on it."""
    st = battle.state
    if st.kind[craft] != K_SHUTTLE or st.status[craft] != ACTIVE:
        return "J1.0 only an administrative shuttle in play lifts survivors"
    if st.kind[planet] != K_PLANET:
        return "P2.0 survivors are lifted from a planet"
    if st.x[craft] != st.x[planet] or st.z[craft] != st.z[planet]:
        return "P2.0 the shuttle must have landed in the planet hex"
    if int(st.target[craft]) != planet:
        return "P2.0 PROPOSAL: only a shuttle sent at the planet picks up survivors"  # [P-111]
    if st.crew_units[craft] >= CREW_CAPACITY:
        return "J1.0 a shuttle carries one crew unit (CTH-DATA §8.6)"
    if st.crew_units[planet] <= 0:
        return "P2.0 no survivors left on the planet"
    return consent_blocker(battle, craft, planet)


def consent_blocker(battle: Battle, unit: int, planet: int) -> str | None:
    """(G8.0) No transport of enemy personnel without consent: the crew units on ``planet``
    (scenario ``crew_side``) go only aboard a unit of their own side, by shuttle or by
    transporter (``engine.transporters``); None where the planet names no side."""
    side = battle.planet_crew_side.get(int(planet))
    if side is None or int(battle.state.side[unit]) == side:
        return None
    return (f"G8.0 no transport of enemy personnel without consent: the survivors on "
            f"{battle.unit_ids[planet]} are {battle.scenario.sides[side]}'s")


def survivors_killed(battle: Battle) -> bool:
    """Whether survivors died: crew units aboard a destroyed unit (a shuttle shot down with
    them, or the ship they were carried to; scenario 9 special)."""
    st = battle.state
    return bool(np.any((st.status == DESTROYED) & (st.crew_units > 0)))


def survivors_aboard(battle: Battle, unit: int) -> int:
    """Crew units aboard ``unit`` (a rescuer ship)."""
    return int(battle.state.crew_units[unit])
