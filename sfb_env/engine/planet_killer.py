"""The Planet Killer (scenario 11; SCENARIOS.md §2.8, CTH-DATA §8.11): an automatic monster.

A unit of kind ``UnitKind.MONSTER`` (scenario class ``planet-killer``, controller
``planet-killer``). What it does, step by step:

* Move Ships, before any ship (C1.3): detection, then its move on the impulses its speed
  gives (speed 6 on the 32-impulse chart: 6, 11, 16, 22, 27, 32). Turn mode 0: it faces any
  hexside before each move. Course: into a hex closer to the planet (two equally close: die
  odd = the left one, even = the right one, relative to its path); it stops once adjacent to
  the planet unless it follows a starship.
* Detection, at the start of every impulse: a starship within 2 hexes is followed "as a
  seeking weapon" (each move into the hex closest to it; several within 2: the closest, equal:
  die); never shuttles, drones, plasma. PROPOSAL [P-115] (SCENARIOS §2.8): it follows till that ship
  is more than 6 hexes away, then resumes the planet course. Starting to follow a ship it has
  not fired at this turn, it fires at it at once (an extra shot).
* Weapon: 360 degrees, range <= 6, range does not matter; die 1..6 -> 40, 30, 20, 10, 5, 1 on
  the facing shield (CTH-DATA §8.11). Its normal shot, once per turn, in Fire Direct-Fire:
  PROPOSAL [P-116] (SCENARIOS §2.8) the turn's first eligible event: a starship within 6 hexes it
  has not fired at this turn (the closest; equal: die), else the planet when within 6.
* After all movement of an impulse: a plasma torpedo that moved within 2 hexes is fired at
  once (as a phaser, ``plasma.take_damage``); close-in defence: a drone in its hex is destroyed
  on a die of 4-6 before it strikes, each shuttle within 3 hexes is destroyed on 4-6, rolled
  once per turn per shuttle (PROPOSAL [P-117]: suicide shuttles are shuttles for this rule).
* Immortality: points scored on it count only toward kill method 3 (at most 150 before that
  result is known); it is destroyed only by the researched method (``Method``; ``engine.labs``).

The monster's side wins when the planet has taken 200 points or every ship of the other side
has left the map (or is gone); that side wins by destroying the monster (``engine.victory``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap, impulse
from sfb_env.engine import events as ev
from sfb_env.engine import labs, movement, probes, shields
from sfb_env.engine.events import Event
from sfb_env.engine.kill_methods import KILL_DAMAGE as KILL_DAMAGE
from sfb_env.engine.kill_methods import PRIOR_DAMAGE_CAP as PRIOR_DAMAGE_CAP
from sfb_env.engine.kill_methods import Method as Method
from sfb_env.engine.kill_methods import MonsterKilled as MonsterKilled
from sfb_env.engine.kill_methods import MonsterStruck as MonsterStruck
from sfb_env.engine.kill_methods import kill as kill
from sfb_env.engine.kill_methods import struck_by as struck_by
from sfb_env.engine.kill_methods import take_damage as take_damage
from sfb_env.engine.kill_methods import tractor_blocker as tractor_blocker
from sfb_env.engine.labs import monsters
from sfb_env.engine.scenario import ScenarioError
from sfb_env.engine.types import (
    ACTIVE,
    K_DRONE,
    K_MONSTER,
    K_PLANET,
    K_PLASMA,
    K_SHIP,
    K_SHUTTLE,
    Maneuver,
    Status,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

CLASS = "planet-killer"  # the scenario ``class`` of a monster unit
CONTROLLER = "planet-killer"
DETECTION_RANGE = 2  # (SCENARIOS §2.8) starts following a starship this close
FOLLOW_LIMIT = 6  # PROPOSAL [P-115] (SCENARIOS §2.8): stops following beyond this range
WEAPON_RANGE = 6  # (CTH-DATA §8.11)
WEAPON_DAMAGE = (40, 30, 20, 10, 5, 1)  # (CTH-DATA §8.11) by die 1..6
PLASMA_RANGE = 2  # (SCENARIOS §2.8) fires at plasma torpedoes moving this close
SHUTTLE_DEFENCE_RANGE = 3  # (SCENARIOS §2.8) close-in defence against shuttles
DEFENCE_DIE = 4  # (SCENARIOS §2.8) a die of 4-6 destroys the drone / shuttle
PLANET_DESTROYED_AT = 200  # (SCENARIOS §2.8) the monster wins


@dataclass(frozen=True)
class MonsterFollows(Event):
    """The monster started (``unit`` set) or stopped (``unit`` "") following a starship."""

    monster: str
    unit: str


@dataclass(frozen=True)
class MonsterFired(Event):
    """The monster's weapon (CTH-DATA §8.11): die, damage, shield struck, kind of shot
    ("normal", "detection", "plasma")."""

    monster: str
    target: str
    range: int
    die: int
    damage: int
    shield: int
    shot: str


@dataclass(frozen=True)
class CloseInDefence(Event):
    """The monster's close-in defence roll against a drone or shuttle (SCENARIOS §2.8)."""

    monster: str
    unit: str
    die: int
    destroyed: bool


def init_state(battle: Battle) -> None:
    """Monster fields, then research (``engine.labs``) and probes (``engine.probes``)."""
    st = battle.state
    n = len(st.kind)
    st.monster_follows = np.full(n, -1, dtype=np.int64)
    st.monster_shot_turn = np.zeros(n, dtype=np.int64)
    st.monster_fired_turn = np.zeros(n, dtype=np.int64)
    st.monster_counted = np.zeros(n, dtype=np.int64)
    st.defence_turn = np.zeros(n, dtype=np.int64)
    labs.init_state(battle)
    probes.init_state(battle)
    sc = battle.scenario
    if sc.victory["kind"] == "planet_killer" and not np.any(st.kind == K_MONSTER):
        raise ScenarioError(sc.source, "victory.kind", "planet_killer (scenario 11) needs a "
                            f"unit of class {CLASS!r}")


def planet(battle: Battle) -> int:
    """The planet the monster goes for (the scenario's first planet unit), -1 if none."""
    rows = np.flatnonzero(battle.state.kind == K_PLANET)
    return int(rows[0]) if len(rows) else -1


def weapon_damage(die: int) -> int:
    """(CTH-DATA §8.11) Damage of the monster's weapon by die 1..6."""
    if not 1 <= int(die) <= 6:
        raise ValueError(f"planet killer weapon: die={die!r} outside 1..6")
    return WEAPON_DAMAGE[int(die) - 1]


def _distance(battle: Battle, a: int, b: int) -> int:
    st = battle.state
    return int(hexmap.distance_np(st.x[a], st.z[a], st.x[b], st.z[b]))


def _die(battle: Battle) -> int:
    return int(battle.rng.integers(1, 7))


def _closest(battle: Battle, m: int, rows: np.ndarray) -> int:
    """The closest of ``rows`` to the monster; equal: a die picks (SCENARIOS §2.8)."""
    st = battle.state
    d = hexmap.distance_np(st.x[m], st.z[m], st.x[rows], st.z[rows])
    best = rows[d == d.min()]
    if len(best) == 1:
        return int(best[0])
    return int(best[int(battle.rng.integers(len(best)))])


def _starships(battle: Battle, m: int, within: int) -> np.ndarray:
    """Active starships of other sides within ``within`` hexes (never shuttles, drones,
    plasma; SCENARIOS §2.8)."""
    st = battle.state
    rows = np.flatnonzero((st.status == ACTIVE) & (st.kind == K_SHIP) & (st.side != st.side[m]))
    if not len(rows):
        return rows
    d = hexmap.distance_np(st.x[m], st.z[m], st.x[rows], st.z[rows])
    return rows[d <= within]


# ---------------------------------------------------------------------- movement


def move_step(battle: Battle) -> None:
    """(C1.3) Monsters move before ships: detection, then the move of this impulse."""
    st = battle.state
    for m in monsters(battle):
        m = int(m)
        detect(battle, m)
        if st.status[m] != ACTIVE or not impulse.moves_on(
                int(st.speed[m]), st.impulse, st.impulses_per_turn):
            continue
        goal = int(st.monster_follows[m])
        if goal < 0 or st.status[goal] != ACTIVE:  # (a ship gone by its detection shot)
            goal = planet(battle)
            if goal < 0 or _distance(battle, m, goal) <= 1:
                continue  # (SCENARIOS §2.8) adjacent to the planet: it stops
        elif st.x[goal] == st.x[m] and st.z[goal] == st.z[m]:
            continue  # (F2.1) in the followed ship's hex
        direction = course(battle, m, goal)
        if direction is None:
            continue
        st.facing[m] = direction  # turn mode 0: any hexside before every move
        movement.move_unit(battle, m, Maneuver.STRAIGHT)


def detect(battle: Battle, m: int) -> None:
    """(SCENARIOS §2.8) Start (or, PROPOSAL [P-115], stop) following a starship; the extra shot."""
    st = battle.state
    followed = int(st.monster_follows[m])
    if followed >= 0:
        if st.status[followed] == ACTIVE and _distance(battle, m, followed) <= FOLLOW_LIMIT:
            return
        st.monster_follows[m] = -1
        battle.log(MonsterFollows(st.turn, st.impulse, battle.unit_ids[m], ""))
    near = _starships(battle, m, DETECTION_RANGE)
    if not len(near):
        return
    ship = _closest(battle, m, near)
    st.monster_follows[m] = ship
    battle.log(MonsterFollows(st.turn, st.impulse, battle.unit_ids[m], battle.unit_ids[ship]))
    if st.monster_fired_turn[ship] != st.turn:  # a ship it has not fired at this turn
        fire(battle, m, ship, "detection")


def course(battle: Battle, m: int, goal: int) -> int | None:
    """Direction 0..5 of the monster's next move toward ``goal``: into the closest hex (never
    the planet hex, never off the map); two equally close: die odd = the left one (counter-
    clockwise), even = the right one (SCENARIOS §2.8). None if no hex is closer."""
    st = battle.state
    dirs = np.arange(6)
    nx, nz = hexmap.neighbor_np(st.x[m], st.z[m], dirs)
    d = hexmap.distance_np(nx, nz, st.x[goal], st.z[goal])
    ok = np.array([battle.in_area(x, z) for x, z in zip(nx, nz, strict=True)])
    p = planet(battle)
    if p >= 0:
        ok &= ~((nx == st.x[p]) & (nz == st.z[p]))
    if not ok.any():
        return None
    best = d[ok].min()
    if best >= _distance(battle, m, goal):
        return None
    cands = [int(k) for k in dirs[ok & (d == best)]]
    if len(cands) == 1:
        return cands[0]
    return pick_side(cands, _die(battle))


def pick_side(directions: list[int], die: int) -> int:
    """Of two adjacent directions, the left (counter-clockwise) one on an odd die, the right
    one on an even die (SCENARIOS §2.8)."""
    a, b = directions[0], directions[1]
    left, right = (a, b) if (b - a) % 6 == 1 else (b, a)
    return left if die % 2 else right


# ---------------------------------------------------------------------- fire


def fire(battle: Battle, m: int, target: int, shot: str) -> None:
    """One shot of the monster's weapon (CTH-DATA §8.11) on the shield facing it."""
    st = battle.state
    die = _die(battle)
    points = weapon_damage(die)
    shield = 0
    if int(st.kind[target]) == K_SHIP:
        shield = shields.shield_from(battle, target, st.x[target], st.z[target],
                                     st.facing[target], st.x[m], st.z[m], source=m,
                                     sf=st.facing[m])
    st.monster_fired_turn[target] = st.turn
    battle.log(MonsterFired(st.turn, st.impulse, battle.unit_ids[m], battle.unit_ids[target],
                            _distance(battle, m, target), die, points, shield, shot))
    if int(st.kind[target]) == K_PLANET:
        st.damage[target] += points  # (SCENARIOS §2.8) the planet takes the monster's damage
        battle.log(ev.Damaged(st.turn, st.impulse, battle.unit_ids[target], 0, 0, points, ()))
    else:
        battle.apply_damage(target, shield, points)


def normal_target(battle: Battle, m: int) -> int:
    """PROPOSAL [P-116] (SCENARIOS §2.8): the once-per-turn shot's target now, -1 none: a starship
    within 6 it has not fired at this turn (closest; equal: die), else the planet within 6."""
    st = battle.state
    ships = _starships(battle, m, WEAPON_RANGE)
    ships = ships[st.monster_fired_turn[ships] != st.turn]
    if len(ships):
        return _closest(battle, m, ships)
    p = planet(battle)
    if p >= 0 and st.status[p] == ACTIVE and _distance(battle, m, p) <= WEAPON_RANGE:
        return p
    return -1


def fire_step(battle: Battle) -> None:
    """Fire Direct-Fire: each monster's normal shot of the turn, if it has a target now."""
    st = battle.state
    for m in monsters(battle):
        m = int(m)
        if st.monster_shot_turn[m] == st.turn:
            continue
        target = normal_target(battle, m)
        if target >= 0:
            st.monster_shot_turn[m] = st.turn
            fire(battle, m, target, "normal")


def after_movement(battle: Battle) -> None:
    """After all movement of the impulse: lab ranges (G4.0), shots at plasma torpedoes that
    moved within 2, close-in defence against drones in its hex and shuttles within 3."""
    st = battle.state
    labs.track_ranges(battle)
    for m in monsters(battle):
        m = int(m)
        d = hexmap.distance_np(st.x[m], st.z[m], st.x, st.z)
        moved = (st.x != st.prev_x) | (st.z != st.prev_z)
        # once per torpedo: not fired at since its launch (plasma rows are reused, FP1)
        launch_turn = (st.launched_at - 1) // st.impulses_per_turn + 1
        for t in np.flatnonzero((st.status == ACTIVE) & (st.kind == K_PLASMA) & moved
                                & (d <= PLASMA_RANGE) & (st.monster_fired_turn < launch_turn)):
            fire(battle, m, int(t), "plasma")  # (SCENARIOS §2.8) as a phaser (FP1.6)
        for t in np.flatnonzero((st.status == ACTIVE) & (st.kind == K_DRONE) & (d == 0)):
            _defend(battle, m, int(t))
        for t in np.flatnonzero((st.status == ACTIVE) & (st.kind == K_SHUTTLE)
                                & (d <= SHUTTLE_DEFENCE_RANGE) & (st.defence_turn != st.turn)
                                & (st.side != st.side[m])):
            st.defence_turn[t] = st.turn
            _defend(battle, m, int(t))


def _defend(battle: Battle, m: int, unit: int) -> None:
    st = battle.state
    die = _die(battle)
    destroyed = die >= DEFENCE_DIE
    battle.log(CloseInDefence(st.turn, st.impulse, battle.unit_ids[m], battle.unit_ids[unit],
                              die, destroyed))
    if destroyed:
        st.status[unit] = Status.DESTROYED
        battle.log(ev.Destroyed(st.turn, st.impulse, battle.unit_ids[unit]))


# ---------------------------------------------------------------------- being harmed


# ---------------------------------------------------------------------- victory


def verdict(battle: Battle, time_up: bool, pair, draw):
    """(Scenario 11 "How to win") The players' side wins by destroying the monster; the
    monster's side wins when the planet has taken 200 points, or when no ship of the other
    side is left in play (one left the map before the monster died, or was destroyed). With
    no turn limit, the env's truncation is a draw. ``pair``/``draw`` build the outcome
    (``engine.victory``)."""
    st = battle.state
    rows = np.flatnonzero(st.kind == K_MONSTER)
    if not len(rows):
        return None
    m = int(rows[0])
    monster_side = battle.scenario.sides[int(st.side[m])]
    if st.status[m] == Status.DESTROYED:
        return pair(battle, monster_side, "loss", "destroyed"), "the Planet Killer was destroyed"
    p = planet(battle)
    if p >= 0 and st.damage[p] >= PLANET_DESTROYED_AT:
        return (pair(battle, monster_side, "win", "planet"),
                f"the planet took {int(st.damage[p])} points")
    ships = np.flatnonzero((st.kind == K_SHIP) & (st.side != st.side[m]) & (st.side >= 0))
    if len(ships) and not np.any(st.status[ships] == ACTIVE):
        return pair(battle, monster_side, "win", "left"), "no ship is left to face the monster"
    if time_up:
        return draw(battle), "turn limit reached"
    return None


# ---------------------------------------------------------------------- kill-method hooks


