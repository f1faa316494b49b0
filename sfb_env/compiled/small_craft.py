"""Small craft in compiled code: ``engine.small_craft`` (J4 Stinger-F fighters, J1.0
administrative shuttles) and ``engine.fighters`` (J4.47) as kernels over a ``BatchState``.

The step calls them where small craft are in play (``CraftTables.on``; ``procedure``: the
launch, the pilots' shots, ``plan_pilots`` before Move Ships, ``move_step`` after it,
``end_of_turn_step``; ``damage.craft_damage``, ``fire``, ``ppd``, ``esg``, ``observe``,
``actions``), on the ``craft_view`` of the state. Proved phase by phase
(``tests/test_compiled_small_craft.py``) and in lockstep (docs/compiled.md).

- ``craft_tables(setup)``: per unit row the carrier (-1), the gun row, the craft's speeds and
  damage thresholds (J4.12, J4.32, J4.49; J1.0, CTH-DATA §8.6), launch capacities (J4.34
  [P-085], one bay [P-084]), the hex-arc table for launch facings, the movement chart and
  play area, the carrier's cloak rule (G13); J4.47's charts against fighters
  (``vs_fighter_chart``), the planets (``compiled.planets``); a suicide shuttle's bomb
  (``compiled.suicide_shuttles``) is no administrative shuttle, a flying one no pilot's.
- ``order_open``: the ``fighters`` / ``shuttles`` component's predicate per target
  (``order_blockers``: J4.34, J1.0, [P-095], F2.3).
- ``send``: launch up to the capacity aboard in the carrier's hex, FA at the target (FD1.2
  analogy), and send every craft of the kind in flight at the target (``Launched``).
- ``robot_launch``: robot carriers' fighters on impulse 1 of turn 1 ([P-085]);
  ``launch_step``: the agents' orders (per-unit target rows) then ``robot_launch``.
- ``pilot_maneuver``: the pilot's move (SCENARIOS §2.9 [P-086], [P-088] retarget, J4.48
  [P-093] homing, [P-089] turning back).
- ``move_fighters``: close-combat maneuvering (J4.52, [P-091]), fighters' moves slower first
  (J4.12, C1.3), the pilot's TAC (J4.11, [P-092]), crippled fighters landing (J4.48, J1.0).
- ``gun_open`` (J4.32, J1.0), ``take_damage`` (J4.12, J4.49, [P-097]; J1.0), ``end_of_turn``
  (J4.48 repair aboard, [P-096]); ``close_combat`` (J4.51, J4.522), ``far_craft`` (J4.47,
  J1.35), ``craft_fire_orders`` (the pilots' shots, [P-087]).

Events: ``Launched`` (its ``rack`` is ``-2 - carrier``, decoded "<carrier>.bay"),
``TacticalManeuver``, ``Landed``, ``Damaged``, ``Destroyed``, ``CraftRepaired``.
"""

from __future__ import annotations

import dataclasses
from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env import hexmap
from sfb_env.compiled import (
    event_codes,
    handle,
    movement,
    planets,
)
from sfb_env.compiled.cloak import FADE_IMPULSES
from sfb_env.compiled.damage import craft_damage
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.robots import DX, DZ
from sfb_env.engine import fighters as ref_fighters
from sfb_env.engine import planets as ref_planets
from sfb_env.engine import small_craft as ref
from sfb_env.engine.types import (
    ACTIVE,
    K_FIGHTER,
    K_FREIGHTER,
    K_PLANET,
    K_SHIP,
    K_SHUTTLE,
    NEVER,
    UNUSED,
    Maneuver,
)

NONE, STRAIGHT = int(Maneuver.NONE), int(Maneuver.STRAIGHT)
TURN_LEFT, TURN_RIGHT = int(Maneuver.TURN_LEFT), int(Maneuver.TURN_RIGHT)
R = hexmap.LUT_RADIUS
FA_BITS = hexmap.ARC_BITS["FA"]
LAUNCHED = event_codes.CODE["Launched"]
TACTICAL = event_codes.CODE["TacticalManeuver"]
LANDED = event_codes.CODE["Landed"]
REPAIRED = event_codes.CODE["CraftRepaired"]
TAC_WORD = event_codes.word("paid_with", "J4.11 fighter")
CCM_WORD = event_codes.word("paid_with", "J4.52 close-combat maneuvering, shield #1")  # + k - 1

CLOAK_NONE, CLOAK_CADET, CLOAK_STANDARD = 0, 1, 2  # (G13) CraftTables.cloak_rule

CraftTables = namedtuple("CraftTables", (
    "on",  # bool rules.small_craft_in_play: the step calls these kernels
    "carrier",  # (U,) int64 the craft's carrier row, -1 for any other unit
    "gun",  # (U,) int64 the craft's weapon row, -1
    "max_speed", "crippled_speed", "crippled_at", "destroyed_at",  # (U,) int64 per craft row
    "capacity",  # (U, 2) int64 per carrier: craft launched at once (fighters, shuttles)
    "agent",  # (U,) bool controlled by an agent (robot carriers launch on turn 1)
    "arc_lut",  # hexmap.ARC_LUT
    "chart",  # (33, ipt) bool the movement chart (C1.41)
    "area", "area_x0", "area_z0", "may_leave",  # the play area (Battle.in_area)
    "ipt", "quarter_turn",
    "cloak_rule",  # CLOAK_NONE / CLOAK_CADET / CLOAK_STANDARD: a cloaked carrier (G13)
    "legal",  # (W, U) bool scratch: the pilots' fire predicate rows (craft_fire_orders)
    "order",  # (U,) int64 scratch: move_fighters' movers
    "planets",  # (P2.0) compiled.planets.PlanetTables: landing, survivors, the pilots' home
))


def craft_tables(setup) -> CraftTables:
    """The static small-craft tables of a ``BattleSetup`` (``on`` False, and nothing refused,
    without small craft); raises NotImplementedError for what the compiled small craft do not
    port."""
    rules = setup.rules
    n_w = len(setup.weapon_ids)
    if not rules.small_craft_in_play:
        n = len(setup.unit_ids)
        z = np.zeros(n, dtype=np.int64)
        return CraftTables(
            on=False, carrier=np.full(n, -1, np.int64), gun=np.full(n, -1, np.int64),
            max_speed=z, crippled_speed=z, crippled_at=z, destroyed_at=z,
            capacity=np.zeros((n, 2), np.int64), agent=np.zeros(n, np.bool_),
            arc_lut=np.zeros((1, 1, 1), np.int64), chart=np.zeros((1, 1), np.bool_),
            area=np.zeros((1, 1), np.bool_), area_x0=0, area_z0=0,
            may_leave=np.zeros(n, np.bool_), ipt=int(setup.start_state.impulses_per_turn),
            quarter_turn=1, cloak_rule=CLOAK_NONE, legal=np.zeros((1, 1), np.bool_),
            order=z.copy(), planets=planets.planet_tables(setup))
    from sfb_env import impulse

    bare = dataclasses.replace(rules, small_craft_in_play=False)
    mt = movement.move_tables(dataclasses.replace(setup, rules=bare))
    carrier = np.asarray(setup.craft_carrier, dtype=np.int64).copy()
    kind = np.asarray(setup.start_state.kind, dtype=np.int64)
    n = len(kind)
    maxs, crips, cat, dat = (np.zeros(n, dtype=np.int64) for _ in range(4))
    cap = np.zeros((n, 2), dtype=np.int64)
    for u in np.flatnonzero(carrier >= 0):
        spec = ref.CRAFT[int(kind[u])]
        maxs[u], crips[u] = spec.max_speed, spec.crippled_speed
        cat[u], dat[u] = spec.crippled_at, spec.destroyed_at
        c = int(carrier[u])
        cap[c, 0] = int(np.sum((carrier == c) & (kind == K_FIGHTER)))  # (J4.34 [P-085])
        cap[c, 1] = 1  # (J1.0 [P-084]) one bay
    ipt = int(setup.start_state.impulses_per_turn)
    return CraftTables(
        carrier=carrier, gun=np.asarray(setup.craft_gun, dtype=np.int64).copy(),
        max_speed=maxs, crippled_speed=crips, crippled_at=cat, destroyed_at=dat, capacity=cap,
        agent=np.array([c == "agent" for c in setup.start_state.controllers], dtype=np.bool_),
        arc_lut=np.array(hexmap.ARC_LUT, np.int64), chart=np.array(mt.chart),
        area=mt.area, area_x0=mt.area_x0, area_z0=mt.area_z0, may_leave=mt.may_leave,
        ipt=ipt, quarter_turn=int(impulse.quarter_turn(ipt)), on=True,
        cloak_rule=cloak_rule(rules),
        legal=np.zeros((n_w, n), np.bool_), order=np.zeros(n, np.int64),
        planets=planets.planet_tables(setup))


def cloak_rule(rules) -> int:
    """(G13) The cloak rule's code for ``carrier_open``."""
    return (CLOAK_STANDARD if rules.standard_cloak else
            CLOAK_NONE if rules.cloak == "none" else CLOAK_CADET)


@nb.njit(cache=True, inline="always")
def fighter_die(die: int, plasma: bool) -> int:
    """(J4.47) The modified die of a hit/miss weapon fired at a fighter (plasma unmodified)."""
    return die if plasma else die + ref_fighters.FIGHTER_DIE_SHIFT


@nb.njit(cache=True, inline="always")
def drone_vs_fighter(warhead: int, die: int) -> int:
    """(J4.47) A drone hitting a fighter scores half its warhead (rounded up) on a natural 6."""
    return (warhead + 1) // 2 if die == 6 else warhead


# ---------------------------------------------------------------------- helpers


@nb.njit(cache=True, inline="always")
def _dist(x1, z1, x2, z2):
    dx = x2 - x1
    dz = z2 - z1
    return max(max(abs(dx), abs(dz)), abs(dx + dz))


@nb.njit(cache=True, inline="always")
def _now(a, ct, b):
    return (a.turn[b] - 1) * ct.ipt + a.impulse[b]


@nb.njit(cache=True, inline="always")
def _crippled(a, ct, b, u):
    """(J4.12, J1.0) a fighter with 7 or more damage points, a shuttle with 3 or more."""
    return a.damage[b, u] >= ct.crippled_at[u]


@nb.njit(cache=True, inline="always")
def _in_area(ct, x, z):
    ix, iz = x - ct.area_x0, z - ct.area_z0
    return 0 <= ix < ct.area.shape[0] and 0 <= iz < ct.area.shape[1] and ct.area[ix, iz]


@kernel(_nrt=False, error_model="numpy")
def _launch_facing(a, ct, b, owner, target):
    """``fire_geometry.launch_facing`` (FD1.2, F2.3)."""
    x, z = a.x[b, owner], a.z[b, owner]
    tx, tz = a.x[b, target], a.z[b, target]
    own = a.facing[b, owner]
    if x == tx and z == tz:
        d = (own + 3) % 6
        x, z = x + DX[d], z + DZ[d]
    vx, vz = tx - x, tz - z
    if abs(vx) > R or abs(vz) > R:
        raise IndexError("compiled launch: offset beyond hexmap.LUT_RADIUS")
    best, best_key = 0, -1
    for f in range(6):
        if (ct.arc_lut[f, vx + R, vz + R] & FA_BITS) != 0:
            key = _dist(x + DX[f], z + DZ[f], tx, tz) * 10 + min((f - own) % 6, (own - f) % 6)
        else:
            key = 10**9
        if best_key < 0 or key < best_key:
            best, best_key = f, key
    return best


# ---------------------------------------------------------------------- orders, launch


@kernel(_nrt=False, error_model="numpy")
def carrier_open(a, carrier_rows, ipt, cloak_rule, b, carrier, craft_kind):
    """``carrier_blocker`` is None (J4.34 fighters, J1.0 shuttles): the carrier has craft of
    the kind aboard or in flight, is in play, the first impulse has come, and a launch keeps
    one shuttle launch per bay per 2 impulses (CTH-DATA §8.6) and no cloak (G13,
    ``cloak.fire_blocker``: cloaked or fading under the standard rule; cloaked, or on the
    first impulse after a cloaked turn, under the cadet rule). ``carrier_rows``: per unit row
    its carrier (``CraftTables.carrier``); ``cloak_rule``: ``CraftTables.cloak_rule``."""
    rows = 0
    alive = 0
    aboard = 0
    last = NEVER
    for u in range(carrier_rows.shape[0]):
        if carrier_rows[u] != carrier or a.kind[b, u] != craft_kind:
            continue
        rows += 1
        st = a.status[b, u]
        alive += st in (ACTIVE, UNUSED)
        aboard += st == UNUSED and a.suicide_energy[b, u] == 0  # (J2.221 [P-073]) no bomb
        last = max(last, a.launched_at[b, u])
    if rows == 0 or a.status[b, carrier] != ACTIVE or a.impulse[b] < 1 or alive == 0:
        return False
    if not aboard:
        return True  # only a new target for the craft in flight
    now = (a.turn[b] - 1) * ipt + a.impulse[b]
    if craft_kind == K_SHUTTLE and last != NEVER and now - last < ref.SHUTTLE_LAUNCH_GAP:
        return False
    if cloak_rule == CLOAK_STANDARD:
        since = now - a.cloak_announced_at[b, carrier]
        return not (a.cloaked[b, carrier] or 0 <= since < FADE_IMPULSES)
    if cloak_rule == CLOAK_CADET:
        return not (a.cloaked[b, carrier] or (a.cloaked_before[b, carrier]
                                               and a.impulse[b] == 1))
    return True


@kernel(_nrt=False, error_model="numpy")
def order_open(a, ct, b, carrier, craft_kind, t):
    """``order_blockers(...)[t]`` is None (``order_open_a`` with the tables)."""
    return order_open_a(a, ct.carrier, ct.ipt, ct.cloak_rule, b, carrier, craft_kind, t)


@kernel(_nrt=False, error_model="numpy")
def order_open_a(a, carrier_rows, ipt, cloak_rule, b, carrier, craft_kind, t):
    """``order_blockers(...)[t]`` is None: sent at an enemy ship, freighter, fighter or
    shuttle in play ([P-095]), not in the carrier's hex while launching (F2.3)."""
    if not carrier_open(a, carrier_rows, ipt, cloak_rule, b, carrier, craft_kind):
        return False
    if a.status[b, t] != ACTIVE or a.side[b, t] == a.side[b, carrier]:
        return False
    k = a.kind[b, t]
    if k == K_PLANET:  # (P2.0) shuttles may land on a planet; fighters not (J4.34)
        return craft_kind == K_SHUTTLE
    if k != K_SHIP and k != K_FREIGHTER and k != K_FIGHTER and k != K_SHUTTLE:
        return False
    launching = False
    for u in range(carrier_rows.shape[0]):
        if carrier_rows[u] == carrier and a.kind[b, u] == craft_kind \
                and a.status[b, u] == UNUSED and a.suicide_energy[b, u] == 0:
            launching = True
    return not (launching and a.x[b, t] == a.x[b, carrier] and a.z[b, t] == a.z[b, carrier])


@kernel(_nrt=False, error_model="numpy")
def launch_craft(a, ct, b, carrier, f, target, speed):
    """(J4.34, J1.0; J2.22 a suicide shuttle) Craft ``f`` leaves ``carrier``'s bay in its hex,
    FA at ``target`` (FD1.2 analogy), at ``speed``, one hex straight first (``Launched`` from
    "<carrier>.bay"); its target is the caller's to set."""
    facing = _launch_facing(a, ct, b, carrier, target)
    a.status[b, f] = ACTIVE
    a.x[b, f] = a.prev_x[b, f] = a.x[b, carrier]
    a.z[b, f] = a.prev_z[b, f] = a.z[b, carrier]
    a.facing[b, f] = a.prev_facing[b, f] = facing
    a.speed[b, f] = speed
    a.straight[b, f] = 0
    a.launched_at[b, f] = _now(a, ct, b)
    r = event_codes.begin(a.ev, a.ev_count, b, LAUNCHED, a.turn[b], a.impulse[b])
    a.ev[b, r, 3] = carrier
    a.ev[b, r, 4] = -2 - carrier  # "<carrier>.bay"
    a.ev[b, r, 5] = f
    a.ev[b, r, 6] = target
    a.ev[b, r, 7] = a.x[b, f]
    a.ev[b, r, 8] = a.z[b, f]
    a.ev[b, r, 9] = facing


@kernel(_nrt=False, error_model="numpy")
def send(a, ct, b, carrier, target, craft_kind):
    """(J4.34, J1.0) Launch up to the capacity of craft aboard in the carrier's hex, FA at the
    target, speed the craft's top (its crippled speed when crippled), one hex straight after
    launch; then every craft of the kind in flight goes after ``target``."""
    left = ct.capacity[carrier, 0 if craft_kind == K_FIGHTER else 1]
    for f in range(ct.carrier.shape[0]):
        if left == 0:
            break
        if ct.carrier[f] != carrier or a.kind[b, f] != craft_kind or a.status[b, f] != UNUSED \
                or a.suicide_energy[b, f] > 0:  # (J2.221 [P-073]) a bomb is no admin shuttle
            continue
        left -= 1
        launch_craft(a, ct, b, carrier, f, target,
                     ct.crippled_speed[f] if _crippled(a, ct, b, f) else ct.max_speed[f])
    for f in range(ct.carrier.shape[0]):
        if ct.carrier[f] == carrier and a.kind[b, f] == craft_kind and a.status[b, f] == ACTIVE \
                and not a.suicide_launched[b, f]:  # (J2.22) a bomb's target is fixed at launch
            a.target[b, f] = target


@kernel(_nrt=False, error_model="numpy")
def _nearest(a, b, unit, ships_only):
    """``small_craft._nearest``: the nearest enemy ship (or freighter) in play, lowest row on
    ties; -1 for none."""
    best, best_d = -1, 0
    for u in range(a.kind.shape[1]):
        k = a.kind[b, u]
        if a.status[b, u] != ACTIVE or a.side[b, u] == a.side[b, unit]:
            continue
        if not (k == K_SHIP or (k == K_FREIGHTER and not ships_only)):
            continue
        d = _dist(a.x[b, unit], a.z[b, unit], a.x[b, u], a.z[b, u])
        if best < 0 or d < best_d:
            best, best_d = u, d
    return best


@kernel(_nrt=False, error_model="numpy")
def robot_launch(a, ct, b):
    """(SCENARIOS §2.9 [P-085]) On impulse 1 of turn 1 each robot carrier in play sends its
    fighters at the nearest enemy ship."""
    if a.turn[b] != 1 or a.impulse[b] != 1:
        return
    for c in range(ct.capacity.shape[0]):
        if ct.capacity[c, 0] == 0 or ct.agent[c] or a.status[b, c] != ACTIVE:
            continue
        t = _nearest(a, b, c, True)
        if t >= 0 and order_open(a, ct, b, c, K_FIGHTER, t):
            send(a, ct, b, c, t, K_FIGHTER)


# ---------------------------------------------------------------------- movement


@kernel(_nrt=False, error_model="numpy")
def pilot_maneuver(a, ct, b, f):
    """The pilot's move ([P-086]): stay in the target's hex, else straight unless a turn the
    turn mode allows (J4.12, J1.0) enters a strictly closer hex (the closer, ties left). A
    target gone is replaced by the nearest enemy ship or freighter ([P-088]); a crippled
    fighter with its carrier in play heads home (J4.48 [P-093]) and turns back whenever
    straight gains nothing ([P-089])."""
    t = a.target[b, f]
    if t < 0 or a.status[b, t] != ACTIVE:
        t = _nearest(a, b, f, False)
        a.target[b, f] = t
    home = ct.carrier[f]
    homing = (a.kind[b, f] == K_FIGHTER and _crippled(a, ct, b, f)
              and a.status[b, home] == ACTIVE)
    if ct.planets.on and not homing:  # (scenario 9, [P-112]) survivors aboard: home
        homing = planets.homing(a.kind, a.crew_units, a.status, home, b, f)
    if homing:
        t = home
    if t < 0:
        return STRAIGHT
    x, z, fc = a.x[b, f], a.z[b, f], a.facing[b, f]
    tx, tz = a.x[b, t], a.z[b, t]
    if tx == x and tz == z:
        return NONE
    dl, dr = (fc + 5) % 6, (fc + 1) % 6
    straight = _dist(x + DX[fc], z + DZ[fc], tx, tz)
    left = _dist(x + DX[dl], z + DZ[dl], tx, tz)
    right = _dist(x + DX[dr], z + DZ[dr], tx, tz)
    mode = 1
    if a.kind[b, f] == K_FIGHTER and a.speed[b, f] >= ref.TURN_MODE_2_SPEED:
        mode = 2  # (J4.12)
    if a.straight[b, f] < mode:  # (C3.2)
        return STRAIGHT
    if homing and straight >= _dist(x, z, tx, tz):
        on_l = _in_area(ct, x + DX[dl], z + DZ[dl])
        on_r = _in_area(ct, x + DX[dr], z + DZ[dr])
        if on_l and (left <= right or not on_r):
            return TURN_LEFT
        return TURN_RIGHT if on_r else STRAIGHT
    if left < straight and left <= right:
        return TURN_LEFT
    if right < straight:
        return TURN_RIGHT
    return STRAIGHT


@kernel(_nrt=False, error_model="numpy")
def _move(a, ct, b, u, m):
    """``movement.move_unit`` for a craft (C3.1; off the map: LeftMap / StayedOnMap)."""
    movement._move_unit_a(a.facing, a.straight, a.slip, a.x, a.z, a.status, a.captured_by,
                          a.side, a.ev, a.ev_count, a.turn[b], a.impulse[b], ct.area,
                          ct.area_x0, ct.area_z0, ct.may_leave, b, u, m)


@kernel(_nrt=False, error_model="numpy")
def _tac_event(a, b, u, turned, word):
    r = event_codes.begin(a.ev, a.ev_count, b, TACTICAL, a.turn[b], a.impulse[b])
    a.ev[b, r, 3] = u
    a.ev[b, r, 4] = a.x[b, u]
    a.ev[b, r, 5] = a.z[b, u]
    a.ev[b, r, 6] = a.facing[b, u]
    a.ev[b, r, 7] = turned
    a.ev[b, r, 8] = word


@kernel(_nrt=False, error_model="numpy")
def tac_open(a, ct, b, f, craft_tac):
    """``tac_blocker`` is None (J4.11): a fighter in play whose top speed (8 crippled, J4.12)
    moves on this impulse, no TAC in the last 4 impulses."""
    if a.kind[b, f] != K_FIGHTER or a.status[b, f] != ACTIVE or a.impulse[b] < 1:
        return False
    top = ct.crippled_speed[f] if _crippled(a, ct, b, f) else ct.max_speed[f]
    if not ct.chart[top, a.impulse[b] - 1]:
        return False
    last = craft_tac[b, f]
    return not (last != NEVER and _now(a, ct, b) - last < ref.TAC_GAP)


@kernel(_nrt=False, error_model="numpy")
def ccm_open(a, b, f, ship):
    """``ccm_blocker`` is None (J4.52, J4.521): an active fighter and an active ship with six
    shields in one hex, neither having entered it this impulse."""
    if a.kind[b, f] != K_FIGHTER or a.status[b, f] != ACTIVE or a.status[b, ship] != ACTIVE:
        return False
    k = a.kind[b, ship]
    if k not in (K_SHIP, K_FREIGHTER) or a.shield_pool[b, ship]:
        return False
    x, z = a.x[b, ship], a.z[b, ship]
    return (a.x[b, f] == x and a.z[b, f] == z and a.prev_x[b, ship] == x
            and a.prev_z[b, ship] == z and a.prev_x[b, f] == x and a.prev_z[b, f] == z)


@kernel(_nrt=False, error_model="numpy")
def land_open(a, ct, b, f, craft_landed):
    """``land_blocker`` is None (J4.48, J1.0, CTH-DATA §8.6): in play in its carrier's hex, the
    carrier in play at speed 6 or less, its bay idle this impulse and the last."""
    c = ct.carrier[f]
    if c < 0 or a.status[b, f] != ACTIVE or a.status[b, c] != ACTIVE:
        return False
    if a.x[b, f] != a.x[b, c] or a.z[b, f] != a.z[b, c]:
        return False
    if a.speed[b, c] > ref.LANDING_MAX_SHIP_SPEED:
        return False
    last = NEVER
    for u in range(ct.carrier.shape[0]):
        if ct.carrier[u] == c:
            last = max(last, craft_landed[b, u], a.launched_at[b, u])
    return not (last != NEVER and _now(a, ct, b) - last < ref.RECOVERY_GAP)


@kernel(_nrt=False, error_model="numpy")
def land(a, ct, b, f, craft_landed):
    """(J4.48, J1.0) The craft lands aboard: off the map (UNUSED), no target (``Landed``)."""
    r = event_codes.begin(a.ev, a.ev_count, b, LANDED, a.turn[b], a.impulse[b])
    a.ev[b, r, 3] = f
    a.ev[b, r, 4] = ct.carrier[f]
    a.ev[b, r, 5] = a.x[b, f]
    a.ev[b, r, 6] = a.z[b, f]
    a.status[b, f] = UNUSED
    a.target[b, f] = -1
    craft_landed[b, f] = _now(a, ct, b)


@kernel(_nrt=False, error_model="numpy")
def move_fighters(p, b):
    """``small_craft.move_fighters`` (J4.12: after all ships, before seeking weapons): CCM
    first (J4.52 [P-091]), then the movers slower first, then by row (C1.3), the pilot's TAC
    when holding (J4.11 [P-092]), then crippled fighters land in their carrier's hex (J4.48).
    ``p``: the view and the tables pinned (``move_args``); ``ct.order``: (U,) int64 scratch."""
    a, ct = handle.deref(p)
    craft_ccm, craft_tac, craft_landed, order = a.craft_ccm, a.craft_tac, a.craft_landed, \
        ct.order
    now = _now(a, ct, b)
    n = a.kind.shape[1]
    for f in range(n):  # (J4.52) close-combat maneuvering
        t = a.target[b, f]
        if a.kind[b, f] != K_FIGHTER or a.status[b, f] != ACTIVE or t < 0:
            continue
        if _crippled(a, ct, b, f) and a.status[b, ct.carrier[f]] == ACTIVE:
            continue  # (J4.48 [P-093]) heading home
        if ccm_open(a, b, f, t):
            shield = 0  # ([P-091]) the weakest shield, lowest number on ties
            for k in range(1, 6):
                if a.shields[b, t, k] < a.shields[b, t, shield]:
                    shield = k
            side = (a.facing[b, t] + shield) % 6
            a.prev_x[b, f] = a.x[b, t] + DX[side]
            a.prev_z[b, f] = a.z[b, t] + DZ[side]
            a.facing[b, f] = a.prev_facing[b, f] = (side + 3) % 6
            craft_ccm[b, f] = now
            _tac_event(a, b, f, 0, CCM_WORD + shield)
    m_count = 0
    imp = a.impulse[b]
    for f in range(n):  # (C1.41) the movers, fixed before any moves
        if a.kind[b, f] == K_FIGHTER and a.status[b, f] == ACTIVE and not a.tactical[b, f] \
                and a.tractor_holder[b, f] < 0 and ct.chart[a.speed[b, f], imp - 1]:
            order[m_count] = f
            m_count += 1
    for i in range(1, m_count):  # (C1.3) slower first, then by row (insertion sort, stable)
        f = order[i]
        j = i - 1
        while j >= 0 and a.speed[b, order[j]] > a.speed[b, f]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = f
    for i in range(m_count):
        f = order[i]
        m = pilot_maneuver(a, ct, b, f)
        if m != NONE:
            _move(a, ct, b, f, m)
            continue
        t = a.target[b, f]  # (J4.11 [P-092]) the pilot's TAC in its target's hex
        if t < 0 or craft_ccm[b, f] == now or a.x[b, t] != a.x[b, f] \
                or a.z[b, t] != a.z[b, f]:
            continue
        off = (a.facing[b, t] - a.facing[b, f]) % 6
        if off and tac_open(a, ct, b, f, craft_tac):
            turned = 1 if off == 1 or off == 2 else -1
            a.facing[b, f] = (a.facing[b, f] + turned) % 6
            a.straight[b, f] = 0
            craft_tac[b, f] = now
            _tac_event(a, b, f, turned, TAC_WORD)
    for f in range(n):  # (J4.48, J1.0) crippled fighters land in their carrier's hex
        if a.kind[b, f] == K_FIGHTER and a.status[b, f] == ACTIVE \
                and a.damage[b, f] >= ct.crippled_at[f]:
            c = ct.carrier[f]
            if a.x[b, f] == a.x[b, c] and a.z[b, f] == a.z[b, c] \
                    and land_open(a, ct, b, f, craft_landed):
                land(a, ct, b, f, craft_landed)


# ---------------------------------------------------------------------- fire, damage


@kernel(_nrt=False, error_model="numpy")
def gun_open(a, ct, b, w):
    """``gun_blocker`` is None: a fighter's phaser-G fires from 8 impulses after launch, once a
    turn while crippled (J4.32); a shuttle's phaser-3 not within a quarter turn of its launch
    (J1.0, CTH-DATA §8.6)."""
    f = a.w_owner[b, w]
    launched = a.launched_at[b, f]
    now = _now(a, ct, b)
    if a.kind[b, f] == K_SHUTTLE:  # (J2.22 [P-077]) a suicide shuttle does not fire
        return (launched != NEVER and now - launched >= ct.quarter_turn
                and not a.suicide_launched[b, f])
    if launched == NEVER or now - launched < ref.FIRST_SHOT_DELAY:
        return False
    if _crippled(a, ct, b, f):
        first = (a.turn[b] - 1) * ct.ipt + 1
        shots = 0
        for k in range(a.w_gatling_shots.shape[2]):
            t = a.w_gatling_shots[b, w, k]
            shots += first <= t < first + ct.ipt
        return shots < ref.CRIPPLED_SHOTS
    return True


@kernel(_nrt=False, error_model="numpy")
def take_damage(a, ct, b, u, points):
    """Points on a small craft (no shields): a fighter crippled at 7 (speed 8 at once,
    [P-097]) and destroyed at 10 (J4.12, J4.49); a shuttle crippled at 3 (speed 3) and
    destroyed at 6 (J1.0, CTH-DATA §8.6): ``damage.craft_damage``, which the step's
    ``damage.apply_damage_a`` calls."""
    craft_damage(a.status, a.damage, a.speed, a.ev, a.ev_count, a.turn[b], a.impulse[b],
                 ct.crippled_at, ct.destroyed_at, ct.crippled_speed, b, u, points)


@kernel(_nrt=False, error_model="numpy")
def end_of_turn(a, ct, b, craft_landed):
    """(J4.48 [P-096]) Every fighter aboard since before this turn began has 1 damage point
    repaired (``CraftRepaired``)."""
    start = (a.turn[b] - 1) * ct.ipt
    for f in range(a.kind.shape[1]):
        if a.kind[b, f] == K_FIGHTER and a.status[b, f] == UNUSED and a.damage[b, f] > 0 \
                and craft_landed[b, f] != NEVER and craft_landed[b, f] <= start:
            a.damage[b, f] -= 1
            r = event_codes.begin(a.ev, a.ev_count, b, REPAIRED, a.turn[b], a.impulse[b])
            a.ev[b, r, 3] = f
            a.ev[b, r, 4] = a.damage[b, f]



@kernel(_nrt=False, error_model="numpy")
def close_combat(a, ct, b, w, t, rng, craft_ccm):
    """(J4.51) Whether weapon ``w`` bears on ``t`` by close combat, whatever its arcs: a
    fighter's gun on any other small craft in its hex; a ship's (six shields) weapon on a
    fighter in its hex using CCM this impulse (J4.522)."""
    owner = a.w_owner[b, w]
    if a.kind[b, owner] != K_FIGHTER:
        k = a.kind[b, owner]
        if k not in (K_SHIP, K_FREIGHTER) or a.shield_pool[b, owner]:
            return False
        return craft_ccm[b, t] == _now(a, ct, b) and rng == 0
    return ct.carrier[t] >= 0 and rng == 0


@nb.njit(cache=True, inline="always")
def far_craft(ct, t, rng):
    """(J4.47, J1.35) A fighter or shuttle cannot be fired at beyond 5 hexes."""
    return ct.carrier[t] >= 0 and rng > ref_fighters.MAX_FIGHTER_TARGET_RANGE


@kernel(_nrt=False, error_model="numpy")
def craft_fire_orders(a, ct, b, fire_out, legal):
    """``robots.craft_fire_orders`` ([P-087], SCENARIOS §2.9): each craft in play with an
    enemy within 2 hexes fires its gun at its target if the fire predicate allows it there
    within 2 hexes, else at the nearest such legal unit (lowest row on ties). ``legal``:
    (W, U) ``direct_fire.fire_mask`` rows; writes the target into ``fire_out[b, w]``."""
    n = a.kind.shape[1]
    for f in range(n):
        w = ct.gun[f]
        if w < 0 or a.status[b, f] != ACTIVE:
            continue
        x, z = a.x[b, f], a.z[b, f]
        near = False
        for u in range(n):
            if a.status[b, u] == ACTIVE and a.side[b, u] != a.side[b, f] \
                    and _dist(x, z, a.x[b, u], a.z[b, u]) <= ref.PILOT_FIRE_RANGE:
                near = True
        if not near:
            continue
        t = a.target[b, f]
        if t >= 0 and legal[w, t] \
                and _dist(x, z, a.x[b, t], a.z[b, t]) <= ref.PILOT_FIRE_RANGE:
            fire_out[b, w] = t
            continue
        best, best_d = -1, 0
        for u in range(n):
            d = _dist(x, z, a.x[b, u], a.z[b, u])
            if legal[w, u] and d <= ref.PILOT_FIRE_RANGE and (best < 0 or d < best_d):
                best, best_d = u, d
        if best >= 0:
            fire_out[b, w] = best


@nb.njit(cache=True, inline="always")
def launch_args(s, ct, o):
    """``launch_step_a``'s arguments (a batch keeps them
    in a handle: ``procedure.call_args``)."""
    return (craft_view(s), ct, o.fighters, o.shuttles)


@nb.njit(cache=True, inline="always")
def launch_step(a, ct, b, fighters, shuttles):
    """``launch_step_a`` with its arguments pinned at the call."""
    launch_step_a(handle.pin((a, ct, fighters, shuttles)), b)


@kernel(_nrt=False, error_model="numpy")
def launch_step_a(p, b):
    """``small_craft.launch_step`` (J4.34, J1.0): each carrier's ``fighters[b, u]`` then
    ``shuttles[b, u]`` order (a target row, -1 none; validated beforehand), carriers by row,
    then the robot carriers' launch ([P-085]). ``p``: the pinned view, tables and orders
    (``launch_args``)."""
    a, ct, fighters, shuttles = handle.deref(p)
    for u in range(fighters.shape[1]):
        if fighters[b, u] >= 0:
            send(a, ct, b, u, fighters[b, u], K_FIGHTER)
        if shuttles[b, u] >= 0:
            send(a, ct, b, u, shuttles[b, u], K_SHUTTLE)
    robot_launch(a, ct, b)


# ---------------------------------------------------------------------- the step's calls

# The BatchState arrays these kernels read and write: the step passes this view (``craft_view(s)``),
# not the whole BatchState (a call passing ~130 arrays slows the step kernel around it).
CRAFT_ARRAYS = ("kind", "side", "status", "x", "z", "facing", "prev_x", "prev_z",
                "prev_facing", "speed", "straight", "slip", "tactical", "tractor_holder",
                "captured_by", "target", "launched_at", "damage", "shields", "shield_pool",
                "w_owner", "w_gatling_shots", "craft_ccm", "craft_tac", "craft_landed",
                "cloaked", "cloaked_before", "cloak_announced_at",  # (G13) a carrier's cloak
                "crew_units",  # (scenario 9) survivors aboard a shuttle
                # (J2.22) a bomb aboard is no administrative shuttle, a flying one no pilot's
                "launcher", "suicide_energy", "suicide_turns", "suicide_paid_turn",
                "suicide_launched",
                "ev", "ev_count", "turn", "impulse")
CraftArrays = namedtuple("CraftArrays", CRAFT_ARRAYS)


@nb.njit(cache=True, inline="always")
def craft_view(s):
    """The ``CraftArrays`` of a ``BatchState`` (the same arrays, no copy)."""
    return CraftArrays(s.kind, s.side, s.status, s.x, s.z, s.facing, s.prev_x, s.prev_z,
                       s.prev_facing, s.speed, s.straight, s.slip, s.tactical,
                       s.tractor_holder, s.captured_by, s.target, s.launched_at, s.damage,
                       s.shields, s.shield_pool, s.w_owner, s.w_gatling_shots, s.craft_ccm,
                       s.craft_tac, s.craft_landed, s.cloaked, s.cloaked_before,
                       s.cloak_announced_at, s.crew_units, s.launcher, s.suicide_energy,
                       s.suicide_turns, s.suicide_paid_turn, s.suicide_launched, s.ev,
                       s.ev_count, s.turn, s.impulse)


def view_of(s) -> CraftArrays:
    """``craft_view`` in plain Python (tests call the kernels on it: the type the step passes
    them, so the cached compilation serves both)."""
    return CraftArrays(*(getattr(s, f) for f in CRAFT_ARRAYS))


@kernel(_nrt=False, error_model="numpy")
def plan_pilots(a, ct, b, plan):
    """(J1.0) ``procedure._move_ships``' plan for the shuttles: each shuttle that moves on this
    impulse (``movement.movers``) gets its pilot's maneuver (``pilot_maneuver``, retargeting
    as it goes) before any unit moves, in row order; ``plan``: ``MoveTables.pilot_plan``."""
    imp = a.impulse[b]
    for u in range(a.kind.shape[1]):
        if a.kind[b, u] != K_SHUTTLE or a.status[b, u] != ACTIVE or a.tactical[b, u] \
                or a.tractor_holder[b, u] >= 0 or not ct.chart[a.speed[b, u], imp - 1] \
                or a.suicide_launched[b, u]:  # (J2.22) a bomb flies as a seeking weapon
            continue
        plan[u] = pilot_maneuver(a, ct, b, u)


@nb.njit(cache=True, inline="always")
def move_args(s, ct):
    """``move_fighters``' arguments (a batch keeps them
    in a handle: ``procedure.call_args``)."""
    return (craft_view(s), ct)


@nb.njit(cache=True, inline="always")
def move_step(a, ct, b):
    """``small_craft.move_fighters`` on the view (J4.12: after Move Ships), pinned at the
    call."""
    move_fighters(handle.pin((a, ct)), b)


@kernel(_nrt=False, error_model="numpy")
def end_of_turn_step(a, ct, b):
    """``small_craft.end_of_turn`` on the view (J4.48: before ``TurnEnded``)."""
    end_of_turn(a, ct, b, a.craft_landed)


@kernel(_nrt=False, error_model="numpy")
def lift_survivors(a, ct, b):
    """(``small_craft.lift_survivors``, CTH-DATA §12.4 [P-111]; End of Impulse) Each shuttle
    landed on the planet it was sent at (``planets.lift_blocker``: empty, one crew unit at
    most, CTH-DATA §8.6; survivors left; G8.0 consent) takes one aboard; then, in row order,
    each shuttle in play with survivors lands aboard its carrier where the landing limits
    allow (``land_open``), the crew units going aboard with it."""
    pt = ct.planets
    n = a.kind.shape[1]
    for s in range(n):
        if not planets.landed(pt, a.kind, a.status, a.x, a.z, b, s):
            continue
        p = a.target[b, s]
        if p < 0 or a.kind[b, p] != K_PLANET or a.x[b, s] != a.x[b, p] \
                or a.z[b, s] != a.z[b, p]:
            continue
        if a.crew_units[b, s] >= ref_planets.CREW_CAPACITY or a.crew_units[b, p] <= 0:
            continue
        if not planets.lift_consent(pt, a.side, b, s, p):
            continue
        a.crew_units[b, p] -= 1
        a.crew_units[b, s] += 1
        planets.crew_lifted(a.ev, a.ev_count, a.turn[b], a.impulse[b], b, s, p,
                            planets.HOW_SHUTTLE)
    for s in range(n):
        if a.kind[b, s] != K_SHUTTLE or a.status[b, s] != ACTIVE or a.crew_units[b, s] <= 0:
            continue
        if land_open(a, ct, b, s, a.craft_landed):
            home = ct.carrier[s]
            crew = a.crew_units[b, s]
            land(a, ct, b, s, a.craft_landed)
            a.crew_units[b, s] = 0
            a.crew_units[b, home] += crew
            planets.crew_lifted(a.ev, a.ev_count, a.turn[b], a.impulse[b], b, home, s,
                                planets.HOW_LANDED)


@nb.njit(cache=True, inline="always")
def decode(c_fighters, c_shuttles, u, slots, b, action, fighters, shuttles):
    """(``env.components.Craft.to_orders``, J4.34, J1.0) the ``fighters`` / ``shuttles``
    components (-1: none or padding): value k sends the craft at target slot k."""
    if c_fighters >= 0 and action[c_fighters] > 0:
        fighters[b, u] = slots[action[c_fighters] - 1]
    if c_shuttles >= 0 and action[c_shuttles] > 0:
        shuttles[b, u] = slots[action[c_shuttles] - 1]
