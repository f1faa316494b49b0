"""The ISC plasmatic pulsar device (E11) in compiled code: ``engine.ppd_fire`` (with the pure
resolver ``engine.ppd``) under the Chief Engineer and the cadet form.

One resolver per rule area, as the reference splits them:

* the charge (E11.2, PROPOSAL [P-056]): the Chief Engineer arms a PPD from turn
  ``w_ready_turn`` (3 at the start, ``ppd_fire.CHIEF_FIRST_TURN``) with the full 8 energy (four
  pulses); firing on turn t empties it until t + 2 (``_start``). Under the cadet form the
  charge is ``ppd_stage`` / ``ppd_energy`` / ``ppd_paid_turn``, paid at Energy Allocation
  (``compiled.energy``, E11.21-E11.25): a train has ``ppd_energy // 2`` pulses, firing empties
  it; a robot's PPD is full every turn (SCENARIOS §2.5);
* the ``ppd[p]`` order (E11.362): 1 drops the wave-lock between pulses (``_end_train``);
* the fire step (E11.31, E11.33, E11.332): drops, new trains from the ``fire[w]`` orders of
  PPD rows, then every pulse due (``fire_step_a``), before any other direct fire;
* the breaking events (E11.54: ``breaking_rule``), the pulse (E11.31-E11.34, E11.51, E11.521:
  2d6 at most the hit number locks; locked, no roll; damage by true range), the split over the
  shields (E11.351 along a hex side, E11.352 splash, E11.353 no splash) and its volley
  (``damage.apply_split_volley_a``, E11.332: each pulse its own volley).

Fire at a ship that announced its cloak after the orders (the standard cloak's Cloak/Uncloak
step) is void, the charge kept (E11.472 ``PpdFireVoid``). Small craft as targets: the centre
value only (E11.353), a fighter's +1 (J4.47), the lock lost beyond 5 hexes (E11.361). Not
ported (the tiers refuse them): reserve top-up (E11.25, H7.2), planets (E11.546), general
reinforcement (E11.39).
"""

from __future__ import annotations

import numba as nb

from sfb_env import hexmap
from sfb_env.compiled import damage, dice, event_codes, shields
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine import ppd as ref_ppd
from sfb_env.engine import ppd_fire as ref_ppd_fire
from sfb_env.engine.types import (
    ACTIVE,
    DESTROYED,
    K_DRONE,
    K_FIGHTER,
    K_SHUTTLE,
    K_TARGET_DRONE,
    PpdOrder,
    WeaponType,
)

FIRED = event_codes.CODE["Fired"]
TRAIN_ENDED = event_codes.CODE["PpdTrainEnded"]
_PPD = int(WeaponType.PPD)
_DROP = int(PpdOrder.DROP)
MYOPIC_RANGE = ref_ppd.MYOPIC_RANGE  # (E11.312) no score at true range 3 or less
DRONE_ROLL_SHIFT = ref_ppd.DRONE_ROLL_SHIFT  # (FD1.52)
FIGHTER_DIE_SHIFT = ref_ppd.FIGHTER_DIE_SHIFT  # (J4.47)
MAX_FIGHTER_TARGET_RANGE = ref_ppd.MAX_FIGHTER_TARGET_RANGE  # (J4.47, E11.361)
REARM_TURNS = ref_ppd_fire.CHIEF_REARM_TURNS  # PROPOSAL [P-056]
CHIEF_PULSES = ref_ppd.FULL_CHARGE // ref_ppd.ENERGY_PER_PULSE  # the Chief Engineer's charge
VOLLEY = damage.PPD_VOLLEY  # scratch words a pulse volley: target, centre (-1), shields 0..6
ppd_tables = damage.ppd_tables  # the static tables (in ``damage.FireTables``)
_R = hexmap.LUT_RADIUS
_ASTERN = hexmap.ASTERN_ROW_BITS
# PpdTrainEnded.rule words (event_codes.VOCAB["rule"])
RULE_DROP = event_codes.word("rule", "E11.362")
RULE_PPD_DESTROYED = event_codes.word("rule", "E11.544")
RULE_TARGET_DESTROYED = event_codes.word("rule", "E11.542")
RULE_OUT = event_codes.word("rule", "E11.541")  # out of arc, out of play, beyond 40
RULE_FIRER_CLOAKED = event_codes.word("rule", "E11.475")
RULE_TARGET_CLOAKED = event_codes.word("rule", "E11.472")
RULE_CRAFT_OUT = event_codes.word("rule", "E11.361")  # a fighter or shuttle beyond 5 hexes
CRAFT_RANGE = MAX_FIGHTER_TARGET_RANGE  # (E11.361, J4.47)
PPD_FIRE_VOID = event_codes.CODE["PpdFireVoid"]


@nb.njit(cache=True, inline="always")
def pulsing(ppd_target, b: int, w: int) -> bool:
    """``ppd_fire.pulsing``: a pulse train is running."""
    return ppd_target[b, w] >= 0


@nb.njit(cache=True, inline="always")
def drop_open(ppd_target, ppd_resolved, b: int, w: int) -> bool:
    """(E11.362) ``ppd[p]`` DROP is open: pulsing, after its first pulse."""
    return ppd_target[b, w] >= 0 and ppd_resolved[b, w] >= 1


@nb.njit(cache=True, inline="always")
def fire_step(s, ft, b, o):
    """The PPD part of Fire Direct-Fire on BatchState ``s`` (``fire_step_a``), called only
    where a PPD has an order or a train (a call passes every array of its arguments)."""
    rows = ft.ppd_rows
    for k in range(rows.shape[0]):
        w = rows[k]
        if s.ppd_target[b, w] >= 0 or o.fire[b, w] >= 0 or o.ppd[b, w] != 0:
            fire_step_a(damage.fire_view(s), ft, b, o.fire, o.ppd, s.ppd_target,
                        s.ppd_fired_at, s.ppd_pulses, s.ppd_resolved, s.ppd_locked,
                        s.w_arcs, s.w_astern, s.ppd_stage, s.ppd_energy)
            return


@kernel(_nrt=False, error_model="numpy")
def fire_step_a(a, ft, b, fire_o, ppd_o, target, fired_at, pulses, resolved, locked, w_arcs,
                w_astern, ppd_stage, ppd_energy):
    """``ppd_fire.fire_step`` (E11.31, E11.332): drop orders (E11.362), new trains from the
    ``fire[w]`` orders of PPD rows, then every pulse due (``resolve_pulses``)."""
    rows = ft.ppd_rows
    for k in range(rows.shape[0]):
        w = rows[k]
        if ppd_o[b, w] == _DROP and target[b, w] >= 0:  # (E11.362) masked: after a pulse
            _end_train(a, b, w, target, resolved, pulses, locked, RULE_DROP)
    for k in range(rows.shape[0]):
        w = rows[k]
        t = fire_o[b, w]
        if t >= 0:
            if a.cloaked[b, t]:  # (E11.472) the target began to cloak after the orders
                r = event_codes.begin(a.ev, a.ev_count, b, PPD_FIRE_VOID, a.turn[b],
                                      a.impulse[b])
                a.ev[b, r, 3] = a.w_owner[b, w]
                a.ev[b, r, 4] = w
                a.ev[b, r, 5] = t
                a.ev[b, r, 6] = RULE_TARGET_CLOAKED
                continue  # the charge stays
            _start(a, ft, b, w, t, target, fired_at, pulses, resolved, locked, ppd_stage,
                   ppd_energy)
    resolve_pulses(a, ft, b, target, pulses, resolved, locked, w_arcs, w_astern)


@kernel(_nrt=False, error_model="numpy")
def _start(a, ft, b, w, t, target, fired_at, pulses, resolved, locked, ppd_stage, ppd_energy):
    """``ppd_fire.start`` (E11.31): the charge empties (``_empty_charge``; PROPOSAL [P-056]:
    the Chief Engineer arms it again two turns on) and its train starts, one pulse per 2
    energy of a governed ship's charge (E11.25), four otherwise; its first pulse resolves
    this impulse."""
    turn = a.turn[b]
    now = (turn - 1) * ft.ipt + a.impulse[b]
    n = CHIEF_PULSES
    if ft.governed[a.w_owner[b, w]]:  # (ppd_fire.charge) the cadet form's charge
        n = ppd_energy[b, w] // ref_ppd.ENERGY_PER_PULSE
    ppd_stage[b, w] = 0
    ppd_energy[b, w] = 0
    a.w_armed[b, w] = False
    if ft.chief_engineer:
        a.w_ready_turn[b, w] = turn + REARM_TURNS
    fired_at[b, w] = now
    pulses[b, w] = n
    resolved[b, w] = 0
    locked[b, w] = False
    target[b, w] = t
    a.w_fired_turn[b, w] = turn
    a.w_last_fired[b, w] = now


@kernel(_nrt=False, error_model="numpy")
def _end_train(a, b, w, target, resolved, pulses, locked, rule):
    """``ppd_fire._store`` of a train ended by ``rule`` (a ``VOCAB["rule"]`` word): the lock
    and the remaining pulses are lost (E11.54, E11.362); ``PpdTrainEnded``."""
    t = target[b, w]
    target[b, w] = -1
    locked[b, w] = False
    r = event_codes.begin(a.ev, a.ev_count, b, TRAIN_ENDED, a.turn[b], a.impulse[b])
    a.ev[b, r, 3] = a.w_owner[b, w]
    a.ev[b, r, 4] = w
    a.ev[b, r, 5] = t
    a.ev[b, r, 6] = resolved[b, w]
    a.ev[b, r, 7] = pulses[b, w]
    a.ev[b, r, 8] = rule


@kernel(_nrt=False, error_model="numpy")
def breaking_rule(a, ft, b, w, t, w_arcs, w_astern):
    """``ppd_fire.breaking_rule``: the E11.54 event ending PPD ``w``'s train on ``t`` before this
    impulse's pulse (a ``VOCAB["rule"]`` word), or -1. The arc as the fire predicate judges it:
    at range 0 from the previous impulse's positions, in arc where they shared a hex (D3.42)."""
    owner = a.w_owner[b, w]
    if a.w_destroyed[b, w] or a.status[b, owner] != ACTIVE:
        return RULE_PPD_DESTROYED  # (E11.544)
    if a.status[b, t] == DESTROYED:
        return RULE_TARGET_DESTROYED  # (E11.542)
    if a.status[b, t] != ACTIVE:
        return RULE_OUT  # (E11.541) out of play
    if a.cloaked[b, owner]:
        return RULE_FIRER_CLOAKED  # (E11.475)
    if a.cloaked[b, t]:
        return RULE_TARGET_CLOAKED  # (E11.472)
    rng = shields.distance(a.x[b, owner], a.z[b, owner], a.x[b, t], a.z[b, t])
    if rng == 0:
        ox, oz, of = a.prev_x[b, owner], a.prev_z[b, owner], a.prev_facing[b, owner]
        tx, tz = a.prev_x[b, t], a.prev_z[b, t]
        if ox == tx and oz == tz:
            return -1  # (D3.42) shared the hex before too: in arc
    else:
        ox, oz, of = a.x[b, owner], a.z[b, owner], a.facing[b, owner]
        tx, tz = a.x[b, t], a.z[b, t]
    bits = ft.arc_lut[of % 6, tx - ox + _R, tz - oz + _R]
    if (bits & w_arcs[b, w]) != 0 or (w_astern[b, w] and (bits & _ASTERN) == _ASTERN):
        return -1
    return RULE_OUT  # (E11.541) out of arc


@nb.njit(cache=True, inline="always")
def pulse(ppd_hit, ppd_dmg, ppd_splash, drone_die_modifier, dice_, b, was_locked, rng,
          target_kind):
    """``ppd.resolve_pulse`` of a pulse whose target is within the chart (E11.31-E11.34,
    E11.51, E11.521): (roll, locked, damage); roll 0 where none is made (locked, or unlocked
    within 3 hexes, E11.312). A drone (``target_kind`` its ``UnitKind``) adds 2 to the roll where
    the modifier is in force (FD1.52) and scores only the centre element (E11.353); so does a
    fighter or shuttle (E11.353), a fighter adding 1 to the roll (J4.47)."""
    drone = target_kind in (K_DRONE, K_TARGET_DRONE)
    small = target_kind in (K_FIGHTER, K_SHUTTLE)
    roll = 0
    now_locked = was_locked
    if not was_locked:
        if rng <= MYOPIC_RANGE:
            return 0, False, 0
        roll = dice.die(dice_, b) + dice.die(dice_, b)  # (E11.31) a natural 2d6
        if drone and drone_die_modifier:
            roll += DRONE_ROLL_SHIFT
        elif target_kind == K_FIGHTER:
            roll += FIGHTER_DIE_SHIFT  # (J4.47)
        now_locked = roll <= ppd_hit[rng]
    if not now_locked or rng <= MYOPIC_RANGE:
        return roll, now_locked, 0
    return roll, True, ppd_splash[rng, 1] if drone or small else ppd_dmg[rng]


@kernel(_nrt=False, error_model="numpy")
def split(a, ft, b, owner, t, rng, points, out):
    """``ppd_fire._split``: ``points`` of one pulse spread over ``out[0..6]`` (index 0: a unit
    without facing shields, E11.353) and the shield it faces (-1 along a hex side). E11.351 on an
    exact boundary: the odd point to the stronger shield; E11.352 splash on the facing shield
    and its neighbours, a single splash point to the stronger neighbour; ties: the target's
    owner names the lower-numbered shield."""
    for k in range(7):
        out[k] = 0
    if not shields.has_facing_shields(a.kind, a.shield_pool, b, t):
        out[0] = points
        return 0
    bits = ft.shield_lut[a.facing[b, t] % 6, a.x[b, owner] - a.x[b, t] + _R,
                         a.z[b, owner] - a.z[b, t] + _R]
    first, second = 0, 0
    for k in range(6):
        if (bits >> k) & 1:
            if first == 0:
                first = k + 1
            else:
                second = k + 1
    strength = a.shields
    if second:  # (E11.351) along a hex side
        big, small = ft.ppd_alt[rng, 0], ft.ppd_alt[rng, 1]
        strong, weak = first, second
        if strength[b, t, second - 1] > strength[b, t, first - 1]:
            strong, weak = second, first
        out[strong] += big
        out[weak] += small
        return -1
    facing = first
    ccw, cw = (facing + 4) % 6 + 1, facing % 6 + 1
    left, centre, right = ft.ppd_splash[rng, 0], ft.ppd_splash[rng, 1], ft.ppd_splash[rng, 2]
    if left + right == 1:  # (E11.352) the two-point pulse: its splash point to the stronger
        s_ccw, s_cw = strength[b, t, ccw - 1], strength[b, t, cw - 1]
        to_ccw = s_ccw > s_cw or (s_ccw == s_cw and ccw < cw)
        left, right = (1, 0) if to_ccw else (0, 1)
    out[ccw] += left
    out[facing] += centre
    out[cw] += right
    return facing


@kernel(_nrt=False, error_model="numpy")
def resolve_pulses(a, ft, b, target, pulses, resolved, locked, w_arcs, w_astern):
    """``ppd_fire.resolve_pulses`` (E11.33): every pulse due now in weapon-row order, rolled on
    the step's starting state (a ``Fired`` row each, ``hit`` = the lock held), then each scoring
    pulse applied as its own volley (E11.332)."""
    vt = ft.work
    nv = 0
    turn, imp = a.turn[b], a.impulse[b]
    rows = ft.ppd_rows
    for k in range(rows.shape[0]):
        w = rows[k]
        t = target[b, w]
        if t < 0:
            continue
        broken = breaking_rule(a, ft, b, w, t, w_arcs, w_astern)
        if broken >= 0:
            _end_train(a, b, w, target, resolved, pulses, locked, broken)
            continue
        owner = a.w_owner[b, w]
        tk = a.kind[b, t]
        rng = shields.distance(a.x[b, owner], a.z[b, owner], a.x[b, t], a.z[b, t])
        resolved[b, w] += 1
        ended = -1
        if tk in (K_FIGHTER, K_SHUTTLE) and rng > CRAFT_RANGE:  # (E11.361) lock lost
            roll, now_locked, dmg = 0, False, 0
            ended = RULE_CRAFT_OUT
        elif rng >= ft.ppd_hit.shape[0]:  # (E11.541) beyond the chart: the lock is broken
            roll, now_locked, dmg = 0, False, 0
            ended = RULE_OUT
        else:
            roll, now_locked, dmg = pulse(ft.ppd_hit, ft.ppd_dmg, ft.ppd_splash,
                                          ft.drone_die_modifier, a.dice, b, locked[b, w], rng,
                                          tk)
        centre = 0
        if dmg:
            at = VOLLEY * nv
            if at + VOLLEY > vt.shape[0]:
                raise IndexError("compiled PPD: volley scratch full (FireTables.work)")
            centre = split(a, ft, b, owner, t, rng, dmg, vt[at + 2:at + VOLLEY])
            vt[at] = t
            vt[at + 1] = centre
            nv += 1
        r = event_codes.begin(a.ev, a.ev_count, b, FIRED, turn, imp)
        a.ev[b, r, 3] = owner
        a.ev[b, r, 4] = w
        a.ev[b, r, 5] = _PPD
        a.ev[b, r, 6] = t
        a.ev[b, r, 7] = rng
        a.ev[b, r, 8] = rng
        a.ev[b, r, 9] = roll
        a.ev[b, r, 10] = now_locked
        a.ev[b, r, 11] = dmg
        a.ev[b, r, 12] = centre if centre > 0 else 0
        locked[b, w] = now_locked
        if ended >= 0:
            _end_train(a, b, w, target, resolved, pulses, locked, ended)
        elif resolved[b, w] >= pulses[b, w]:  # the last pulse: the train is over, no event
            target[b, w] = -1
            locked[b, w] = False
    for k in range(nv):  # (E11.332) each pulse its own volley
        at = VOLLEY * k
        damage.apply_split_volley_a(a, ft, b, vt[at], vt[at + 2:at + VOLLEY], vt[at + 1])
