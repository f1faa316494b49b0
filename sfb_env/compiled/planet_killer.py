"""The Planet Killer (scenario 11; SCENARIOS.md §2.8, CTH-DATA §8.11), lab research (G4.0) and
the probes' launch (G5.12-G5.34), compiled.

Mirrors ``engine.planet_killer``, ``engine.labs`` and ``engine.probes.launch`` (the probes'
orders, energy and mask: ``compiled.probes``; the monster's immortality and kill methods:
``compiled.kill_methods``). ``monster_tables(setup)`` builds ``MonsterTables`` (``on`` with a
monster in play). The step's calls (``compiled.procedure``), each as the reference:

* ``move_step`` in Move Ships after the previous positions are kept and before any ship (C1.3):
  each monster's detection (a starship within 2 followed, the closest, equal: a die;
  PROPOSAL [P-115] followed till beyond 6; starting to follow a ship not fired at this turn: the
  detection shot), then its move on the impulses its speed gives, turn mode 0: into the hex
  closest to the followed ship or the planet (never the planet hex, never off the map; two
  equally close: die odd the left one, even the right one); it stops adjacent to the planet;
* ``after_movement`` after all movement of an impulse (after the ESG contacts, before Resolve
  Seeking Weapons): the lab ranges (G4.0), the shots at plasma torpedoes that moved within 2
  (once per torpedo), the close-in defence (a drone in its hex, each shuttle of another side
  within 3 once a turn: destroyed on 4-6, PROPOSAL [P-117]);
* ``probe_fire_step`` then ``fire_step`` at the end of Fire Direct-Fire: the probes launched
  (G5.12: an information probe adds 20 within 6 hexes of a monster, G5.2; an anti-matter
  probe fired along the centre row, G5.33, hitting on a die >= the range, warhead 8 on the
  facing shield, G5.34, or destroying a monster whose kill method 4 its side found), then
  each monster's once-per-turn shot (PROPOSAL [P-116]: a starship within 6 not fired at this
  turn, the closest, equal: a die; else the planet within 6);
* ``end_of_turn`` at End of Turn after the boarding-party combat: an unfired anti-matter probe
  lost (G5.32), then the turn's research (G4.0: per researcher one die, chart value x labs)
  and the research rolls now due (SCENARIOS §2.8: at 100 points, one more per further 50).

The monster's weapon: die 1..6 -> 40, 30, 20, 10, 5, 1 on the facing shield (CTH-DATA §8.11);
the planet takes it as damage (200 destroy it: ``compiled.ending``'s verdict).
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env import tables
from sfb_env.compiled import damage, event_codes, kill_methods, probes, robots, shields
from sfb_env.compiled import dice as dice_mod
from sfb_env.compiled.borrowed import borrow
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.movement import _move_unit_a
from sfb_env.compiled.robots import DX, DZ, STRAIGHT
from sfb_env.data.charts import LAB_MAX_RANGE
from sfb_env.engine import labs as ref_labs
from sfb_env.engine import planet_killer as ref
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    K_DRONE,
    K_MONSTER,
    K_PLANET,
    K_PLASMA,
    K_SHIP,
    K_SHUTTLE,
    Box,
)

MONSTER_FOLLOWS = event_codes.CODE["MonsterFollows"]
MONSTER_FIRED = event_codes.CODE["MonsterFired"]
CLOSE_IN_DEFENCE = event_codes.CODE["CloseInDefence"]
RESEARCHED = event_codes.CODE["Researched"]
RESEARCH_ROLLED = event_codes.CODE["ResearchRolled"]
PROBE_LAUNCHED = event_codes.CODE["ProbeLaunched"]
DAMAGED = event_codes.CODE["Damaged"]
DESTROYED_EV = event_codes.CODE["Destroyed"]
SHOT_NORMAL = event_codes.word("shot", "normal")
SHOT_DETECTION = event_codes.word("shot", "detection")
SHOT_PLASMA = event_codes.word("shot", "plasma")
PROBE_INFORMATION = event_codes.word("probe", "information")
PROBE_ANTIMATTER = event_codes.word("probe", "anti-matter")
DETECTION_RANGE = ref.DETECTION_RANGE  # (SCENARIOS §2.8)
FOLLOW_LIMIT = ref.FOLLOW_LIMIT  # PROPOSAL [P-115]
WEAPON_RANGE = ref.WEAPON_RANGE  # (CTH-DATA §8.11)
WEAPON_DAMAGE = np.array(ref.WEAPON_DAMAGE, dtype=np.int64)  # (CTH-DATA §8.11) by die 1..6
PLASMA_RANGE = ref.PLASMA_RANGE  # (SCENARIOS §2.8)
SHUTTLE_DEFENCE_RANGE = ref.SHUTTLE_DEFENCE_RANGE  # (SCENARIOS §2.8)
DEFENCE_DIE = ref.DEFENCE_DIE  # (SCENARIOS §2.8) 4-6 destroys
NO_RANGE = ref_labs.NO_RANGE  # (G4.0) no range tracked this turn
FIRST_ROLL_AT = ref_labs.FIRST_ROLL_AT  # (SCENARIOS §2.8)
ROLL_EVERY = ref_labs.ROLL_EVERY
INFORMATION_POINTS = ref.probes.INFORMATION_POINTS  # (G5.2)
ANTIMATTER_WARHEAD = ref.probes.ANTIMATTER_WARHEAD  # (G5.34)
_LAB = int(Box.LAB)

MonsterTables = namedtuple("MonsterTables", (
    "on",  # bool rules.monster_in_play (scenario 11)
    "research",  # bool rules.research: labs with a monster in play (G4.0)
    "probes",  # bool rules.probes_in_play: a probe launcher with probes (G5.11)
    "planet",  # int the planet the monster goes for (the first planet row), -1 none
    "lab_chart",  # (6, LAB_MAX_RANGE + 1) int64 (G4.0, CTH-DATA §8.8) by [die - 1, range]
    "has_control",  # (U,) bool a control space (bridge, emergency bridge, auxiliary control)
    #   on the sheet: one lab for a ship without working labs (G4.0, PROPOSAL [P-118])
    "work",  # (1,) int64 scratch: the centre-row target's range (probes.centre_row_target)
))


def monster_tables(setup) -> MonsterTables:
    """``MonsterTables`` of ``setup``."""
    rules = setup.rules
    kind = np.asarray(setup.start_state.kind)
    planets = np.flatnonzero(kind == K_PLANET)
    chart = np.array([[tables.lab_information(rng, die) for rng in range(LAB_MAX_RANGE + 1)]
                      for die in range(1, 7)], dtype=np.int64)
    control = np.array([ship is not None and any(ship.systems.get(name, 0)
                                                 for name in ref_labs.CONTROL_SYSTEMS)
                        for ship in setup.ship_classes], dtype=np.bool_)
    return MonsterTables(on=bool(rules.monster_in_play), research=bool(rules.research),
                         probes=bool(rules.probes_in_play),
                         planet=int(planets[0]) if len(planets) else -1, lab_chart=chart,
                         has_control=control, work=np.zeros(1, np.int64))


# ---------------------------------------------------------------------- helpers


@nb.njit(cache=True, inline="always")
def _distance(x, z, b, u, t):
    return robots.distance(x[b, u], z[b, u], x[b, t], z[b, t])


@nb.njit(cache=True, inline="always")
def _starship(status, kind, side, x, z, b, m, t, within):
    """(planet_killer._starships) an active starship of another side within ``within``
    (never shuttles, drones, plasma)."""
    return (status[b, t] == ACTIVE and kind[b, t] == K_SHIP and side[b, t] != side[b, m]
            and _distance(x, z, b, m, t) <= within)


@kernel(_nrt=False, error_model="numpy")
def _closest_starship(status, kind, side, x, z, fired_turn, dice, b, m, within, unfired,
                      turn):
    """(planet_killer._closest of ``_starships``) The closest starship within ``within`` (with
    ``unfired``: not fired at this turn), -1 none; equal: ``rng.integers(n)`` picks among
    them in row order."""
    best = 1 << 40
    count = 0
    for t in range(kind.shape[1]):
        if not _starship(status, kind, side, x, z, b, m, t, within):
            continue
        if unfired and fired_turn[b, t] == turn:
            continue
        d = _distance(x, z, b, m, t)
        if d < best:
            best = d
            count = 1
        elif d == best:
            count += 1
    if count == 0:
        return -1
    pick = 0 if count == 1 else dice_mod.roll(dice, b, 0, count)
    for t in range(kind.shape[1]):
        if not _starship(status, kind, side, x, z, b, m, t, within):
            continue
        if unfired and fired_turn[b, t] == turn:
            continue
        if _distance(x, z, b, m, t) == best:
            if pick == 0:
                return t
            pick -= 1
    return -1


# ---------------------------------------------------------------------- fire


@kernel(_nrt=False, error_model="numpy")
def fire(a, ft, fired_turn, b, m, target, shot):
    """(planet_killer.fire, CTH-DATA §8.11) One shot of the monster's weapon on the shield
    facing it (a ship's; none for a torpedo or the planet): ``MonsterFired``; the planet takes
    the points as damage (``Damaged``), any other unit through ``apply_damage_a``."""
    die = dice_mod.die(a.dice, b)
    points = WEAPON_DAMAGE[die - 1]
    shield = 0
    if a.kind[b, target] == K_SHIP:
        shield = shields.shield_from(a, ft, b, target, a.x[b, target], a.z[b, target],
                                     a.facing[b, target], a.x[b, m], a.z[b, m], m,
                                     a.facing[b, m])
    turn, imp = a.turn[b], a.impulse[b]
    fired_turn[b, target] = turn
    r = event_codes.begin(a.ev, a.ev_count, b, MONSTER_FIRED, turn, imp)
    a.ev[b, r, 3] = m
    a.ev[b, r, 4] = target
    a.ev[b, r, 5] = _distance(a.x, a.z, b, m, target)
    a.ev[b, r, 6] = die
    a.ev[b, r, 7] = points
    a.ev[b, r, 8] = shield
    a.ev[b, r, 9] = shot
    if a.kind[b, target] == K_PLANET:  # (SCENARIOS §2.8) the planet takes the monster's damage
        a.damage[b, target] += points
        r = event_codes.begin(a.ev, a.ev_count, b, DAMAGED, turn, imp)
        a.ev[b, r, 3] = target
        a.ev[b, r, 6] = points
    else:
        damage.apply_damage_a(a, ft, b, target, shield, points)


@kernel(_nrt=False, error_model="numpy")
def _fire_step_a(a, ft, pk, shot_turn, fired_turn, b):
    """(planet_killer.fire_step) Each monster's normal shot of the turn (PROPOSAL [P-116])."""
    turn = a.turn[b]
    for m in range(a.kind.shape[1]):
        if a.status[b, m] != ACTIVE or a.kind[b, m] != K_MONSTER:
            continue
        if shot_turn[b, m] == turn:
            continue
        target = _closest_starship(a.status, a.kind, a.side, a.x, a.z, fired_turn, a.dice, b,
                                   m, WEAPON_RANGE, True, turn)
        if target < 0:
            p = pk.planet
            if (p >= 0 and a.status[b, p] == ACTIVE
                    and _distance(a.x, a.z, b, m, p) <= WEAPON_RANGE):
                target = p
        if target >= 0:
            shot_turn[b, m] = turn
            fire(a, ft, fired_turn, b, m, target, SHOT_NORMAL)


@nb.njit(cache=True, inline="always")
def fire_step(s, ft, pk, b):
    """Fire Direct-Fire, after the other direct fire and the probes: the monsters' shots."""
    _fire_step_a(damage.fire_view(s), ft, pk, s.monster_shot_turn, s.monster_fired_turn, b)


# ---------------------------------------------------------------------- movement


@kernel(_nrt=False, error_model="numpy")
def _detect(a, ft, follows, fired_turn, b, m):
    """(planet_killer.detect, SCENARIOS §2.8) Start (or, PROPOSAL [P-115], stop) following a
    starship; starting on one not fired at this turn, the detection shot."""
    turn, imp = a.turn[b], a.impulse[b]
    followed = follows[b, m]
    if followed >= 0:
        if (a.status[b, followed] == ACTIVE
                and _distance(a.x, a.z, b, m, followed) <= FOLLOW_LIMIT):
            return
        follows[b, m] = -1
        r = event_codes.begin(a.ev, a.ev_count, b, MONSTER_FOLLOWS, turn, imp)
        a.ev[b, r, 3] = m
        a.ev[b, r, 4] = -1
    ship = _closest_starship(a.status, a.kind, a.side, a.x, a.z, fired_turn, a.dice, b, m,
                             DETECTION_RANGE, False, turn)
    if ship < 0:
        return
    follows[b, m] = ship
    r = event_codes.begin(a.ev, a.ev_count, b, MONSTER_FOLLOWS, turn, imp)
    a.ev[b, r, 3] = m
    a.ev[b, r, 4] = ship
    if fired_turn[b, ship] != turn:  # a ship it has not fired at this turn
        fire(a, ft, fired_turn, b, m, ship, SHOT_DETECTION)


@kernel(_nrt=False, error_model="numpy")
def course(mt, pk, x, z, dice, b, m, goal):
    """(planet_killer.course) Direction 0..5 of the monster's next move toward ``goal``: into
    the closest hex (never the planet hex, never off the map); two equally close: die odd the
    left (counter-clockwise) one, even the right one (SCENARIOS §2.8). -1 if none is closer."""
    gx, gz = x[b, goal], z[b, goal]
    p = pk.planet
    best = 1 << 40
    for d in range(6):
        nx, nz = x[b, m] + DX[d], z[b, m] + DZ[d]
        if not robots.in_area(mt, nx, nz) or (p >= 0 and nx == x[b, p] and nz == z[b, p]):
            continue
        best = min(best, robots.distance(nx, nz, gx, gz))
    if best == 1 << 40 or best >= _distance(x, z, b, m, goal):
        return -1
    first = -1
    second = -1
    for d in range(6):
        nx, nz = x[b, m] + DX[d], z[b, m] + DZ[d]
        if not robots.in_area(mt, nx, nz) or (p >= 0 and nx == x[b, p] and nz == z[b, p]):
            continue
        if robots.distance(nx, nz, gx, gz) == best:
            if first < 0:
                first = d
            elif second < 0:
                second = d
    if second < 0:
        return first
    die = dice_mod.die(dice, b)
    left, right = (first, second) if (second - first) % 6 == 1 else (second, first)
    return left if die % 2 else right  # (planet_killer.pick_side)


@kernel(_nrt=False, error_model="numpy")
def _move_step_a(a, ft, mt, pk, follows, fired_turn, slip, captured_by, b):
    """(planet_killer.move_step) Detection, then each monster's move of this impulse."""
    turn, imp = a.turn[b], a.impulse[b]
    for m in range(a.kind.shape[1]):
        if a.status[b, m] != ACTIVE or a.kind[b, m] != K_MONSTER:
            continue
        _detect(a, ft, follows, fired_turn, b, m)
        if a.status[b, m] != ACTIVE or not mt.chart[a.speed[b, m], imp - 1]:
            continue
        goal = follows[b, m]
        if goal < 0 or a.status[b, goal] != ACTIVE:  # (a ship gone by its detection shot)
            goal = pk.planet
            if goal < 0 or _distance(a.x, a.z, b, m, goal) <= 1:
                continue  # (SCENARIOS §2.8) adjacent to the planet: it stops
        elif a.x[b, goal] == a.x[b, m] and a.z[b, goal] == a.z[b, m]:
            continue  # (F2.1) in the followed ship's hex
        direction = course(mt, pk, a.x, a.z, a.dice, b, m, goal)
        if direction < 0:
            continue
        a.facing[b, m] = direction  # turn mode 0: any hexside before every move
        _move_unit_a(a.facing, a.straight, slip, a.x, a.z, a.status, captured_by, a.side,
                     a.ev, a.ev_count, turn, imp, mt.area, mt.area_x0, mt.area_z0,
                     mt.may_leave, b, m, STRAIGHT)


@nb.njit(cache=True, inline="always")
def move_step(s, ft, mt, pk, b):
    """(C1.3) Monsters move before ships: detection, then the move of this impulse (after
    ``movement.keep_previous``)."""
    _move_step_a(damage.fire_view(s), ft, mt, pk, borrow(s.monster_follows),
                 borrow(s.monster_fired_turn), borrow(s.slip), borrow(s.captured_by), b)


# ---------------------------------------------------------------------- after movement


@kernel(_nrt=False, error_model="numpy")
def _monster_side(kind, side, b, u):
    """Whether ``u`` is on a monster's side (labs.researchers: any monster row)."""
    for m in range(kind.shape[1]):  # noqa: SIM110 (a plain loop for numba)
        if kind[b, m] == K_MONSTER and side[b, m] == side[b, u]:
            return True
    return False


@nb.njit(cache=True, inline="always")
def _researcher(status, kind, side, b, u):
    """(labs.researchers) an active ship or shuttle not of a monster's side."""
    return (status[b, u] == ACTIVE and (kind[b, u] == K_SHIP or kind[b, u] == K_SHUTTLE)
            and not _monster_side(kind, side, b, u))


@kernel(_nrt=False, error_model="numpy")
def track_ranges(status, kind, side, x, z, cloaked, lab_range, b):
    """(labs.track_ranges, G4.0) Each researcher's closest range to an active monster this
    turn; a cloaked ship cannot use its labs outward."""
    n = kind.shape[1]
    any_monster = False
    for m in range(n):
        if status[b, m] == ACTIVE and kind[b, m] == K_MONSTER:
            any_monster = True
    if not any_monster:
        return
    for u in range(n):
        if not _researcher(status, kind, side, b, u) or cloaked[b, u]:
            continue
        d = 1 << 40
        for m in range(n):
            if status[b, m] == ACTIVE and kind[b, m] == K_MONSTER:
                d = min(d, _distance(x, z, b, u, m))
        lab_range[b, u] = min(lab_range[b, u], d)


@kernel(_nrt=False, error_model="numpy")
def _defend(status, dice, ev, ev_count, turn, imp, b, m, unit):
    """(planet_killer._defend) A close-in defence roll: 4-6 destroys (SCENARIOS §2.8)."""
    die = dice_mod.die(dice, b)
    destroyed = die >= DEFENCE_DIE
    r = event_codes.begin(ev, ev_count, b, CLOSE_IN_DEFENCE, turn, imp)
    ev[b, r, 3] = m
    ev[b, r, 4] = unit
    ev[b, r, 5] = die
    ev[b, r, 6] = destroyed
    if destroyed:
        status[b, unit] = DESTROYED
        r = event_codes.begin(ev, ev_count, b, DESTROYED_EV, turn, imp)
        ev[b, r, 3] = unit


@kernel(_nrt=False, error_model="numpy")
def _after_movement_a(a, ft, fired_turn, defence_turn, cloaked, lab_range, b):
    """(planet_killer.after_movement) Lab ranges (G4.0), the shots at plasma torpedoes that
    moved within 2, the close-in defence against drones in the monster's hex and shuttles of
    another side within 3 (once a turn each)."""
    track_ranges(a.status, a.kind, a.side, a.x, a.z, cloaked, lab_range, b)
    n = a.kind.shape[1]
    turn, imp = a.turn[b], a.impulse[b]
    for m in range(n):
        if a.status[b, m] != ACTIVE or a.kind[b, m] != K_MONSTER:
            continue
        for t in range(n):  # once per torpedo: not fired at since its launch (FP1 reuse)
            if a.status[b, t] != ACTIVE or a.kind[b, t] != K_PLASMA:
                continue
            if a.x[b, t] == a.prev_x[b, t] and a.z[b, t] == a.prev_z[b, t]:
                continue
            launch_turn = (a.launched_at[b, t] - 1) // ft.ipt + 1
            if _distance(a.x, a.z, b, m, t) <= PLASMA_RANGE and fired_turn[b, t] < launch_turn:
                fire(a, ft, fired_turn, b, m, t, SHOT_PLASMA)  # (SCENARIOS §2.8) as a phaser
        for t in range(n):
            if (a.status[b, t] == ACTIVE and a.kind[b, t] == K_DRONE
                    and _distance(a.x, a.z, b, m, t) == 0):
                _defend(a.status, a.dice, a.ev, a.ev_count, turn, imp, b, m, t)
        for t in range(n):
            if (a.status[b, t] == ACTIVE and a.kind[b, t] == K_SHUTTLE
                    and _distance(a.x, a.z, b, m, t) <= SHUTTLE_DEFENCE_RANGE
                    and defence_turn[b, t] != turn and a.side[b, t] != a.side[b, m]):
                defence_turn[b, t] = turn
                _defend(a.status, a.dice, a.ev, a.ev_count, turn, imp, b, m, t)


@nb.njit(cache=True, inline="always")
def after_movement(s, ft, b):
    """After all movement of an impulse (scenario 11, G4.0)."""
    _after_movement_a(damage.fire_view(s), ft, borrow(s.monster_fired_turn),
                      borrow(s.defence_turn), borrow(s.cloaked), borrow(s.lab_range), b)


# ---------------------------------------------------------------------- probes


@kernel(_nrt=False, error_model="numpy")
def _launch(a, ft, probes_left, probe_kind, probe_stage, probe_paid_turn, information,
            rng_out, b, u):
    """(probes.launch) Launch ``u``'s armed probe (G5.12): an information probe's 20 points
    within 6 hexes of a monster (G5.2); an anti-matter probe along the centre row (G5.33)."""
    kind = probe_kind[b, u]
    probes_left[b, u] -= 1
    probe_kind[b, u] = probes.NONE
    probe_stage[b, u] = 0
    probe_paid_turn[b, u] = 0
    turn, imp = a.turn[b], a.impulse[b]
    n = a.kind.shape[1]
    if kind == probes.INFORMATION:
        best = -1
        d_min = 0
        for m in range(n):
            if a.status[b, m] == ACTIVE and a.kind[b, m] == K_MONSTER:
                d = _distance(a.x, a.z, b, u, m)
                if best < 0 or d < d_min:
                    best, d_min = m, d
        near = best >= 0 and d_min <= probes.PROBE_RANGE
        points = INFORMATION_POINTS if near else 0
        if points:  # (G5.2) within 6 hexes of the object
            information[b, a.side[b, u]] += points
        r = event_codes.begin(a.ev, a.ev_count, b, PROBE_LAUNCHED, turn, imp)
        a.ev[b, r, 3] = u
        a.ev[b, r, 4] = PROBE_INFORMATION
        a.ev[b, r, 5] = best if near else -1
        a.ev[b, r, 6] = d_min if best >= 0 else -1
        a.ev[b, r, 7] = 0
        a.ev[b, r, 8] = near
        a.ev[b, r, 9] = points
        return
    target = probes.centre_row_target(a.status, a.kind, a.side, a.x, a.z, a.facing, b, u,
                                      rng_out)
    if target < 0:
        return
    rng = rng_out[0]
    die = dice_mod.die(a.dice, b)
    hit = rng == 0 or die >= rng  # (G5.33) effective range = true range (no EW in CTH)
    r = event_codes.begin(a.ev, a.ev_count, b, PROBE_LAUNCHED, turn, imp)
    a.ev[b, r, 3] = u
    a.ev[b, r, 4] = PROBE_ANTIMATTER
    a.ev[b, r, 5] = target
    a.ev[b, r, 6] = rng
    a.ev[b, r, 7] = die
    a.ev[b, r, 8] = hit
    a.ev[b, r, 9] = ANTIMATTER_WARHEAD if hit else 0
    if not hit:
        return
    if a.kind[b, target] == K_MONSTER and kill_methods.struck_by(
            a.status, a.kind, a.side, a.kill_methods, a.ev, a.ev_count, turn, imp, b, target,
            kill_methods.ANTIMATTER_PROBE, u):
        return  # (SCENARIOS §2.8 result 4) destroyed
    shield = 0
    if a.kind[b, target] == K_SHIP:
        shield = shields.shield_from(a, ft, b, target, a.x[b, target], a.z[b, target],
                                     a.facing[b, target], a.x[b, u], a.z[b, u], u,
                                     a.facing[b, u])
    damage.apply_damage_a(a, ft, b, target, shield, ANTIMATTER_WARHEAD)  # (G5.34)


@nb.njit(cache=True, inline="always")
def probe_fire_step(s, ft, b, o_probe, rng_out):
    """(probes.fire_step, G5.12) The Direct-Fire step: launch every probe ordered."""
    for u in range(o_probe.shape[1]):
        if o_probe[b, u] == probes.LAUNCH:
            _launch(damage.fire_view(s), ft, borrow(s.probes_left), borrow(s.probe_kind),
                    borrow(s.probe_stage), borrow(s.probe_paid_turn), borrow(s.information),
                    rng_out, b, u)


# ---------------------------------------------------------------------- End of Turn


@kernel(_nrt=False, error_model="numpy")
def research(status, kind, side, x, z, cloaked, boxes, lab_range, information, research_rolls,
             kill_methods_, dice, ev, ev_count, turn, imp, lab_chart, has_control, b):
    """(labs.end_of_turn, G4.0) The turn's research (per researcher with a range of at most
    10 and labs: one die, chart value x labs), then the research rolls now due (SCENARIOS
    §2.8); the range tracking restarts from the positions at the end of the turn."""
    track_ranges(status, kind, side, x, z, cloaked, lab_range, b)
    n = kind.shape[1]
    for u in range(n):
        if not _researcher(status, kind, side, b, u):
            continue
        rng = lab_range[b, u]
        if kind[b, u] == K_SHUTTLE:  # (labs.labs_of) a shuttle is one lab
            n_labs = 1
        elif boxes[b, u, _LAB] > 0:
            n_labs = boxes[b, u, _LAB]
        else:  # (G4.0, PROPOSAL [P-118]) one control space as one lab
            n_labs = 1 if has_control[u] else 0
        if rng > LAB_MAX_RANGE or n_labs == 0:  # (G4.0) nothing beyond range 10: no die
            continue
        die = dice_mod.die(dice, b)
        points = lab_chart[die - 1, rng] * n_labs
        sd = side[b, u]
        information[b, sd] += points
        r = event_codes.begin(ev, ev_count, b, RESEARCHED, turn, imp)
        ev[b, r, 3] = u
        ev[b, r, 4] = rng
        ev[b, r, 5] = die
        ev[b, r, 6] = n_labs
        ev[b, r, 7] = points
        ev[b, r, 8] = information[b, sd]
    for sd in range(information.shape[1]):  # (labs.roll_research) results accumulate
        info = information[b, sd]
        due = 0 if info < FIRST_ROLL_AT else 1 + (info - FIRST_ROLL_AT) // ROLL_EVERY
        while research_rolls[b, sd] < due:
            research_rolls[b, sd] += 1
            die = dice_mod.die(dice, b)
            kill_methods_[b, sd, die - 1] = True
            r = event_codes.begin(ev, ev_count, b, RESEARCH_ROLLED, turn, imp)
            ev[b, r, 3] = sd
            ev[b, r, 4] = die
            ev[b, r, 5] = info
    for u in range(n):
        lab_range[b, u] = NO_RANGE
    track_ranges(status, kind, side, x, z, cloaked, lab_range, b)


@nb.njit(cache=True, inline="always")
def end_of_turn(s, pk, b):
    """End of Turn (after the boarding-party combat): the unfired anti-matter probes lost
    (G5.32), then the research (G4.0)."""
    if pk.probes:
        probes.end_of_turn(s.probe_kind, s.probe_stage, s.probe_paid_turn, b)
    if pk.research:
        research(s.status, s.kind, s.side, s.x, s.z, s.cloaked, s.boxes, s.lab_range,
                 s.information, s.research_rolls, s.kill_methods, s.dice, s.ev, s.ev_count,
                 s.turn[b], s.impulse[b], pk.lab_chart, pk.has_control, b)
