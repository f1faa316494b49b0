"""The standard form's engineering rules and the Klingon mutiny in compiled code: shield
reinforcement (D3.34), damage control (D9) and reserve power (H7), with ``rules.energy:
standard``, and mutiny (G6, with the standard DAC).

Mirrors ``engine.energy_allocation._pay_repair_and_reinforcement`` / ``_pay_repair`` (priority
5a, 5b of the clamp: ``pay_repair_and_reinforcement``, called by ``energy._allocate``),
``energy_allocation.end_of_turn`` (``end_of_turn``: D9.2 repairs, D3.341 / D3.342 the
reinforcement ends), ``shield_absorption`` (``absorb``: general then specific reinforcement
then boxes, D3.3411; batteries into the struck shield, H7.2, [P-031]; ``orders_step``:
``keep_reserve`` H7.1 and ``switch_on_general``, the D3.3411 note [P-033]),
``fire_energy.pay_shot`` / ``fire_blocker`` under reserve power (``pay_shot``,
``reserve_fire``: a phaser fired from batteries, an unarmed disruptor armed from them, H7.2),
``energy_orders``' blockers of ``reinforce_general``, ``reinforce[s]``, ``reinforce_hold``,
``repair[s]`` and ``reserve_shields`` (``masks``), the ``reinforcement`` and
``damage_control`` rule features (``features``) and ``engine.mutiny`` (``after_damage``,
``mutiny_end_of_turn``: G6.2-G6.34, the capture of ``boarding.capture``).

Tables: ``energy.EnergyTables`` (``engineering``, ``reinforcement``, ``damage_control``,
``reserve_power``, ``dc_rating``, ``init_shields``), ``damage.FireTables`` (``mutiny_tables``);
state: ``BatchState.reinf_general``, ``reinf_specific``, ``reinf_held``, ``reserve_kept``,
``dc_repairs``, ``mutiny``, ``control_stations``; orders: ``BatchOrders`` (per unit, per unit
and shield ``6 u + s``). A battle without these rules never calls this module (each hook is
one guarded call) and its engineering order rows are zero-wide.

Not ported (refused by ``energy.energy_tables`` / ``mutiny_tables``): a PPD's general
reinforcement (E11.39) and reserve top-up (E11.25), an ESG's reserve power (G23.212), fusion
beams under reserve power (E7.24), tractors and transporters (their reserve uses, H7.2), a
mutinous ship with others of its side (G6.34: the battle goes on with the prize).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from sfb_env.compiled import dice, event_codes, purse
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine import mutiny as ref_mutiny
from sfb_env.engine.dac import DacBox
from sfb_env.engine.energy_form import (
    ACTIVATE_GENERAL,
    HOLD_GENERAL,
    KEEP_RESERVE,
    REINFORCE_GENERAL_MAX,
    REINFORCE_HOLD_VALUES,
    REINFORCE_SPECIFIC_MAX,
    REPAIR_BOX_VALUES,
    RESERVE_SHIELD_VALUES,
)
from sfb_env.engine.types import ACTIVE, K_SHIP, Box

N_SHIELDS = 6
_WARP, _IMPULSE, _APR, _BATTERY = int(Box.WARP), int(Box.IMPULSE), int(Box.APR), int(Box.BATTERY)
SHIELDS_REINFORCED = event_codes.CODE["ShieldsReinforced"]
GR_HELD = event_codes.CODE["GeneralReinforcementHeld"]
SHIELDS_REPAIRED = event_codes.CODE["ShieldsRepaired"]
RESERVE_DISCHARGED = event_codes.CODE["ReserveDischarged"]
FIRE_UNPOWERED = event_codes.CODE["FireUnpowered"]
ITEM_REINFORCE = event_codes.word("item", "reinforce:#1")  # then #2..#6
ITEM_REINFORCE_GENERAL = event_codes.word("item", "reinforce_general")
ITEM_REPAIR = event_codes.word("item", "repair:#1")  # then #2..#6
USE_REINFORCE = event_codes.word("use", "reinforce:#1")  # then #2..#6
USE_FIRE = event_codes.FIRE_USE_WEAPON  # "fire:<weapon>": the weapon row + this
# the components' sizes (env.energy_actions)
GENERAL_VALUES = REINFORCE_GENERAL_MAX + 1
SPECIFIC_VALUES = REINFORCE_SPECIFIC_MAX + 1
HOLD_VALUES = REINFORCE_HOLD_VALUES
REPAIR_VALUES = REPAIR_BOX_VALUES
RESERVE_VALUES = RESERVE_SHIELD_VALUES
SCRATCH = 2 * N_SHIELDS  # ``EnergyTables.work``'s last words: specific bought, repair spent
# (G6) mutiny: BatchState.mutiny's values, the security stations' and control spaces' DacBox
QUIET, ROLLING, PUT_DOWN, CAPTURED = (ref_mutiny.QUIET, ref_mutiny.ROLLING, ref_mutiny.PUT_DOWN,
                                      ref_mutiny.CAPTURED)
_SECURITY = int(DacBox.SECURITY)
_BRIDGE, _AUX, _EMER = (int(b) for b in ref_mutiny.CONTROL_SPACES)
MUTINY = event_codes.CODE["Mutiny"]
CAPTURED_EV = event_codes.CODE["Captured"]
NO_MUTINY = event_codes.word("result", "no mutiny")
RESULT_PUT_DOWN = event_codes.word("result", "put down")
RESULT_CAPTURED = event_codes.word("result", "captured")


# ---------------------------------------------------------------------- predicates


@nb.njit(cache=True, inline="always")
def charged(batteries, boxes, b: int, u: int) -> int:
    """(energy_form.charged) Charged batteries that are not destroyed (line 5)."""
    return min(batteries[b, u], boxes[b, u, _BATTERY])


@nb.njit(cache=True, inline="always")
def rating(dac_boxes, dc_rating, dc_box: int, b: int, u: int) -> int:
    """(energy_form.dc_rating, D9.1) the best undestroyed box of the damage-control track
    under the standard DAC (``dc_rating[u, boxes left]``), else the printed rating."""
    return dc_rating[u, dac_boxes[b, u, dc_box]]


@nb.njit(cache=True, inline="always")
def lost_before(shields, dc_repairs, init_shields, b: int, u: int, s: int) -> int:
    """(energy_form.destroyed_before, D9.2) shield #``s + 1``'s boxes lost on earlier turns,
    net of the repairs pending this turn."""
    return max(0, init_shields[u, s] - shields[b, u, s] - dc_repairs[b, u, s])


# ---------------------------------------------------------------------- impulse orders


@kernel(_nrt=False, error_model="numpy")
def orders_step(reserve_shields, reinforce_hold, reserve_kept, reinf_held, reinf_general, ev,
                ev_count, turn: int, imp: int, reserve_power: bool, reinforcement: bool,
                b: int) -> None:
    """(procedure.advance's first steps) ``shield_absorption.keep_reserve`` (H7.1: the
    batteries kept out of struck shields till the next decision point, [P-031]) and, from
    impulse 1, ``switch_on_general`` (D3.3411 note of rules file 004, [P-033]: held general
    reinforcement switched on; ``GeneralReinforcementHeld`` active)."""
    n_units = reserve_kept.shape[1]
    if reserve_power:
        for u in range(n_units):
            reserve_kept[b, u] = reserve_shields[b, u] == KEEP_RESERVE
    if imp >= 1 and reinforcement:
        for u in range(n_units):
            if reinforce_hold[b, u] == ACTIVATE_GENERAL and reinf_held[b, u]:
                reinf_held[b, u] = False
                r = event_codes.begin(ev, ev_count, b, GR_HELD, turn, imp)
                ev[b, r, 3] = u
                ev[b, r, 4] = reinf_general[b, u]
                ev[b, r, 5] = True


# ---------------------------------------------------------------------- End of Turn


@kernel(_nrt=False, error_model="numpy")
def end_of_turn(status, shields, dc_repairs, reinf_general, reinf_specific, reinf_held, ev,
                ev_count, turn: int, imp: int, init_shields, b: int) -> None:
    """(energy_allocation.end_of_turn) Damage control restores the shield boxes it paid for,
    never above the printed boxes (D9.2, ``damage_control.repair_shields``:
    ``ShieldsRepaired``); unused reinforcement vanishes (D3.341, D3.342)."""
    n_units = status.shape[1]
    for u in range(n_units):
        due = False
        for s in range(N_SHIELDS):
            due = due or dc_repairs[b, u, s] != 0
        if not due or status[b, u] != ACTIVE:
            continue
        for s in range(N_SHIELDS):
            shields[b, u, s] = min(init_shields[u, s], shields[b, u, s] + dc_repairs[b, u, s])
        r = event_codes.begin(ev, ev_count, b, SHIELDS_REPAIRED, turn, imp)
        ev[b, r, 3] = u
        ev[b, r, 4] = N_SHIELDS
        for s in range(N_SHIELDS):
            ev[b, r, 5 + s] = dc_repairs[b, u, s]
    for u in range(n_units):
        reinf_general[b, u] = 0
        reinf_held[b, u] = False
        for s in range(N_SHIELDS):
            dc_repairs[b, u, s] = 0
            reinf_specific[b, u, s] = 0


# ---------------------------------------------------------------------- Energy Allocation


@nb.njit(cache=True, inline="always")
def pay_repair_and_reinforcement(s, et, b: int, u: int, o, p) -> int:
    """(energy_allocation._pay_repair_and_reinforcement) Priorities 5a, 5b of the standard
    form: damage control (D9.2, ``_pay_repair``), then reinforcement (D3.34): each specific
    order on a shield still up, paid whole from power or batteries while the shields are
    active (D3.343, H7.2), then general reinforcement in pairs of points from ship power alone
    (D3.341; H7.2 names specific reinforcement only); ``ShieldsReinforced`` and, held
    inactive, ``GeneralReinforcementHeld`` (D3.3411 note). Returns the energy not paid."""
    turn = s.turn[b]
    shortfall = _pay_repair(s, et, b, u, o, p)
    s.reinf_held[b, u] = False
    general_order = o.reinforce_general[b, u]
    ordered = general_order != 0
    for k in range(N_SHIELDS):
        ordered = ordered or o.reinforce[b, N_SHIELDS * u + k] != 0
    if not ordered:
        return shortfall
    spec = et.work[et.work.shape[0] - SCRATCH:et.work.shape[0] - N_SHIELDS]
    for k in range(N_SHIELDS):
        spec[k] = 0
        e = o.reinforce[b, N_SHIELDS * u + k]
        if e == 0 or s.shields[b, u, k] == 0:  # (D3.343) fell since the orders: nothing paid
            continue
        if s.shields_active[b, u] and purse.pay(p, e, False, True):
            spec[k] = e
        else:  # (D3.34) no reinforcement without active shields
            shortfall += e
            purse.log_shortfall(s, et, b, u, ITEM_REINFORCE + k, e)
    wanted = 2 * general_order
    general = 0
    if s.shields_active[b, u]:
        general = purse.afford(p, wanted, False) // 2 * 2
    purse.pay(p, general, False, False)
    if general < wanted:
        shortfall += wanted - general
        purse.log_shortfall(s, et, b, u, ITEM_REINFORCE_GENERAL, wanted - general)
    s.reinf_general[b, u] = general // 2  # (D3.341) energy // 2 points
    r = event_codes.begin(s.ev, s.ev_count, b, SHIELDS_REINFORCED, turn, 0)
    s.ev[b, r, 3] = u
    s.ev[b, r, 4] = general // 2
    s.ev[b, r, 5] = N_SHIELDS
    for k in range(N_SHIELDS):
        s.reinf_specific[b, u, k] = spec[k]
        s.ev[b, r, 6 + k] = spec[k]
    if o.reinforce_hold[b, u] == HOLD_GENERAL and general // 2:  # (D3.3411 note) held
        s.reinf_held[b, u] = True
        r = event_codes.begin(s.ev, s.ev_count, b, GR_HELD, turn, 0)
        s.ev[b, r, 3] = u
        s.ev[b, r, 4] = general // 2
    return shortfall


@nb.njit(cache=True, inline="always")
def _pay_repair(s, et, b: int, u: int, o, p) -> int:
    """(energy_allocation._pay_repair, D9.2) ``repair[s]`` in shield order, each trimmed to the
    rating left and the boxes lost on earlier turns (PROPOSAL [P-034]), paid whole from ship
    power alone (no reserve power, D9.2); the plan's repairs (``dc_repairs``) are due at End
    of Turn. Returns the energy not paid."""
    spent = et.work[et.work.shape[0] - N_SHIELDS:]
    total, shortfall, any_spent = 0, 0, False
    dc = rating(s.dac_boxes, et.dc_rating, et.dc_box, b, u)
    for k in range(N_SHIELDS):
        spent[k] = 0
    for k in range(N_SHIELDS):
        boxes = o.repair_boxes[b, N_SHIELDS * u + k]
        if boxes == 0:
            continue
        lost = lost_before(s.shields, s.dc_repairs, et.init_shields, b, u, k)
        room = min(lost - spent[k] // 2, (dc - total) // 2)
        cost = 2 * max(0, min(boxes, room))
        if cost and purse.pay(p, cost, False, False):
            spent[k] += cost
            total += cost
            any_spent = True
        elif cost:
            shortfall += cost
            purse.log_shortfall(s, et, b, u, ITEM_REPAIR + k, cost)
    if any_spent:  # (damage_control.plan_damage_control) 2 energy a box
        for k in range(N_SHIELDS):
            s.dc_repairs[b, u, k] = spent[k] // 2
    return shortfall


# ---------------------------------------------------------------------- shields struck


@kernel(_nrt=False, error_model="numpy")
def absorb(shields, reinf_general, reinf_specific, reinf_held, batteries, boxes, reserve_kept,
           ev, ev_count, turn: int, imp: int, reserve_power: bool, b: int, u: int, k: int,
           points: int):
    """(shield_absorption.apply_shield, active shields) ``points`` on shield #``k + 1`` of a
    governed ship: general reinforcement unless held (D3.3411 and its note), then specific,
    then boxes (D3.2); under reserve power the charged batteries not kept (H7.1) go into the
    struck shield as specific reinforcement first, as many as the points past the
    reinforcement (H7.2, PROPOSAL [P-031]; ``ReserveDischarged``). Returns (boxes destroyed,
    points going on to internal damage)."""
    general = reinf_general[b, u]
    gr = min(points, general) if not reinf_held[b, u] else 0
    left = points - gr
    sp = min(left, reinf_specific[b, u, k])
    left -= sp
    extra = 0
    if reserve_power and left and shields[b, u, k] > 0 and not reserve_kept[b, u]:
        have = charged(batteries, boxes, b, u)
        if have:
            extra = min(left, have)
            batteries[b, u] = have - extra
            r = event_codes.begin(ev, ev_count, b, RESERVE_DISCHARGED, turn, imp)
            ev[b, r, 3] = u
            ev[b, r, 4] = USE_REINFORCE + k
            ev[b, r, 5] = extra
            ev[b, r, 6] = have - extra
    # (reinforcement.absorb_volley on the specific reinforcement with the reserve added)
    sp = min(points - gr, reinf_specific[b, u, k] + extra)
    left = points - gr - sp
    took = min(left, shields[b, u, k])
    shields[b, u, k] -= took
    reinf_general[b, u] = general - gr
    reinf_specific[b, u, k] = reinf_specific[b, u, k] + extra - sp
    return took, left - took


# ---------------------------------------------------------------------- reserve power at fire


@nb.njit(cache=True, inline="always")
def reserve_fire(w_type, w_armed, w_destroyed, batteries, boxes, phaser_draw, single_turn,
                 cycle, b: int, w: int, owner: int) -> bool:
    """(fire_energy.fire_blocker, reserve power) whether the charged batteries power weapon
    ``w`` of a governed ship that ``purse.fire_powered`` found unpowered (fire control paid):
    a phaser short of capacitor energy with ceil(draw) batteries, an unarmed disruptor with
    its arming energy (H7.2, E3.2; ``reserve_armable``)."""
    kind = w_type[b, w]
    draw = phaser_draw[kind]
    have = charged(batteries, boxes, b, owner)
    if draw > 0.0:
        return have >= int(np.ceil(draw))
    if single_turn[kind] and not w_armed[b, w] and not w_destroyed[b, w]:
        return have >= cycle[kind, 0]
    return False


@kernel(_nrt=False, error_model="numpy")
def pay_shot(a, ft, b: int, w: int, owner: int, kind: int) -> bool:
    """(fire_energy.pay_shot under reserve power) an unarmed disruptor of a governed ship is
    armed from charged batteries as it fires (H7.2, E3.2: its arming, 2); a phaser short of
    capacitor energy fires on ceil(draw) batteries (H7.2); else the capacitor pays (H6.1).
    ``ReserveDischarged`` for the batteries drawn, ``FireUnpowered`` where the volley's other
    shots left too little."""
    if not ft.governed[owner]:
        return True
    have = charged(a.batteries, a.boxes, b, owner)
    if ft.single_turn[kind] and not a.w_armed[b, w] and not a.w_destroyed[b, w]:
        need = ft.cycle[kind, 0]
        if have < need:
            r = event_codes.begin(a.ev, a.ev_count, b, FIRE_UNPOWERED, a.turn[b], a.impulse[b])
            a.ev[b, r, 3] = owner
            a.ev[b, r, 4] = w
            a.ev[b, r, 5] = purse.float_bits(ft.fbits, float(have))
            return False
        _discharge_fire(a, b, w, owner, have, need)
        a.w_armed[b, w] = True  # armed now; ``purse.fired`` spends it with the shot
        return True
    draw = ft.phaser_draw[kind]
    if draw <= 0.0:
        return True
    need = int(np.ceil(draw))
    if a.capacitor[b, owner] + purse.EPS < draw and have >= need:
        _discharge_fire(a, b, w, owner, have, need)
        return True
    return purse.pay_shot(a, ft, b, w, owner, kind)


@nb.njit(cache=True, inline="always")
def _discharge_fire(a, b: int, w: int, owner: int, have: int, need: int) -> None:
    a.batteries[b, owner] = have - need
    r = event_codes.begin(a.ev, a.ev_count, b, RESERVE_DISCHARGED, a.turn[b], a.impulse[b])
    a.ev[b, r, 3] = owner
    a.ev[b, r, 4] = USE_FIRE + w
    a.ev[b, r, 5] = need
    a.ev[b, r, 6] = have - need


# ---------------------------------------------------------------------- mutiny (G6)


@kernel(_nrt=False, error_model="numpy")
def after_damage(status, mutiny, dac_boxes, captured_by, control_stations, speed, dice_, ev,
                 ev_count, turn: int, imp: int, security, shift, captor, b: int,
                 u: int) -> None:
    """(mutiny.after_damage, G6.2) a Klingon ship whose last security station has just been
    destroyed (G6.1: the standard DAC's "FlagBridge" hits) rolls at once, then at the end of
    each turn (``mutiny_end_of_turn``)."""
    if (status[b, u] != ACTIVE or mutiny[b, u] != QUIET or not security[u]
            or dac_boxes[b, u, _SECURITY] > 0):
        return
    mutiny[b, u] = ROLLING
    _roll(mutiny, dac_boxes, captured_by, control_stations, speed, dice_, ev, ev_count, turn,
          imp, shift, captor, b, u)


@kernel(_nrt=False, error_model="numpy")
def mutiny_end_of_turn(status, mutiny, dac_boxes, captured_by, control_stations, speed, dice_,
                       ev, ev_count, turn: int, imp: int, shift, captor, b: int) -> None:
    """(mutiny.end_of_turn, G6.2) the end-of-turn roll of every ship in play still rolling."""
    for u in range(status.shape[1]):
        if mutiny[b, u] == ROLLING and status[b, u] == ACTIVE:
            _roll(mutiny, dac_boxes, captured_by, control_stations, speed, dice_, ev, ev_count,
                  turn, imp, shift, captor, b, u)


@nb.njit(cache=True, inline="always")
def _roll(mutiny, dac_boxes, captured_by, control_stations, speed, dice_, ev, ev_count,
          turn: int, imp: int, shift, captor, b: int, u: int) -> None:
    """(mutiny.roll) The occurrence die, less the modifier (G6.22 ``shift``: every full 4
    enemy boarding parties aboard; G6.23: every control space destroyed), 1 a mutiny; then the
    success die plus it: 1-3 put down (G6.24), else the ship stops (G6.32) and is captured by
    the enemy (G6.33, G6.34; ``boarding.capture``: ``Captured``; PROPOSAL [P-106] the captor
    of several enemy sides, ``captor``)."""
    mod = shift[u] + (dac_boxes[b, u, _BRIDGE] == 0 and dac_boxes[b, u, _AUX] == 0
                      and dac_boxes[b, u, _EMER] == 0)
    die = dice.die(dice_, b)
    r = event_codes.begin(ev, ev_count, b, MUTINY, turn, imp)
    ev[b, r, 3] = u
    ev[b, r, 4] = die
    if max(1, die - mod) != 1:
        ev[b, r, 6] = NO_MUTINY
        return
    second = dice.die(dice_, b)
    ev[b, r, 5] = second
    if min(6, second + mod) <= 3:  # (G6.24) put down: no further rolls
        mutiny[b, u] = PUT_DOWN
        ev[b, r, 6] = RESULT_PUT_DOWN
        return
    mutiny[b, u] = CAPTURED  # (G6.31) no further rolls
    speed[b, u] = 0  # (G6.32) the ship stops at once
    ev[b, r, 6] = RESULT_CAPTURED
    captured_by[b, u] = captor[u]  # (G6.33, G6.34; boarding.capture) the enemy takes it
    control_stations[b, u] = 0
    r = event_codes.begin(ev, ev_count, b, CAPTURED_EV, turn, imp)
    ev[b, r, 3] = u
    ev[b, r, 4] = captor[u]


def mutiny_tables(setup) -> dict[str, object]:
    """(G6) ``mutiny``: the rule; per unit ``security`` (a Klingon ship with security
    stations, ``mutiny.has_security``), ``mutiny_shift`` (G6.22: full 4 enemy boarding parties
    aboard, //4; the parties never change in the compiled tiers: no boarding) and ``captor``
    (``mutiny.captor``, PROPOSAL [P-106])."""
    rules = setup.rules
    st = setup.start_state
    n_units = len(setup.unit_ids)
    security = np.zeros(n_units, np.bool_)
    shift = np.zeros(n_units, np.int64)
    captor = np.full(n_units, -1, np.int64)
    n_sides = len(setup.scenario.sides)
    for u, ship in enumerate(setup.ship_classes):
        security[u] = (ship is not None and ship.race == "klingon"
                       and ship.systems.get("security", 0) > 0)
        parties = np.asarray(st.boarding_parties[u])
        own = int(st.side[u])
        shift[u] = (int(parties.sum()) - (int(parties[own]) if own >= 0 else 0)) // 4
        if rules.mutiny and security[u] and any(
                v != u and int(st.kind[v]) == K_SHIP and int(st.side[v]) == own
                for v in range(n_units)):  # (G6.34) the prize fights on among its side
            raise NotImplementedError("compiled mutiny: a Klingon ship with others of its "
                                      "side (G6.34: the battle goes on after a capture)")
        enemies = [s for s in range(n_sides) if s != own]
        if enemies:
            captor[u] = max(enemies, key=lambda s: (int(parties[s]), -s))
    return {"mutiny": bool(rules.mutiny), "security": security, "mutiny_shift": shift,
            "captor": captor}


# ---------------------------------------------------------------------- masks, features


@nb.njit(cache=True, inline="always")
def masks(shields, reinf_general, reinf_held, batteries, boxes, dac_boxes, dc_repairs,
          init_shields, dc_rating, dc_box: int, flags: int, allocation: bool, b: int, u: int,
          m, at: int) -> None:
    """(energy_orders' blockers) The masks of the engineering components from mask offset
    ``at`` (``flags``: 1 reinforcement, 2 damage control, 4 reserve power; value 0 always
    open): ``reinforce_general`` at Energy Allocation while 2 energy a point fits ship power
    (D3.341, H7.2: no batteries); ``reinforce[s]`` on a shield still up while power and
    charged batteries pay it (D3.342, D3.343); ``reinforce_hold`` HOLD at Energy Allocation,
    ACTIVATE in the turn while general reinforcement is held (D3.3411 note, [P-033]);
    ``repair[s]`` within the rating, the boxes lost on earlier turns and ship power (D9.2: no
    reserve power); ``reserve_shields`` KEEP (H7.1)."""
    power = boxes[b, u, _WARP] + boxes[b, u, _IMPULSE] + boxes[b, u, _APR]
    most = power + charged(batteries, boxes, b, u)
    if flags & 1:
        m[at] = 1
        for v in range(1, GENERAL_VALUES):
            m[at + v] = allocation and 2 * v <= power
        at += GENERAL_VALUES
        for k in range(N_SHIELDS):
            m[at] = 1
            up = allocation and shields[b, u, k] > 0
            for v in range(1, SPECIFIC_VALUES):
                m[at + v] = up and v <= most
            at += SPECIFIC_VALUES
        m[at] = 1
        m[at + HOLD_GENERAL] = allocation
        m[at + ACTIVATE_GENERAL] = (not allocation and reinf_held[b, u]
                                    and reinf_general[b, u] > 0)
        at += HOLD_VALUES
    if flags & 2:
        dc = rating(dac_boxes, dc_rating, dc_box, b, u)
        for k in range(N_SHIELDS):
            m[at] = 1
            lost = lost_before(shields, dc_repairs, init_shields, b, u, k)
            for v in range(1, REPAIR_VALUES):
                m[at + v] = allocation and 2 * v <= dc and v <= lost and 2 * v <= power
            at += REPAIR_VALUES
    if flags & 4:
        m[at] = 1
        m[at + KEEP_RESERVE] = 1


@nb.njit(cache=True, inline="always")
def features(reinf_general, reinf_specific, dac_boxes, dc_repairs, dc_rating, dc_box: int,
             governed: bool, off_reinf: int, off_dc: int, b: int, u: int, out) -> None:
    """(rule_features._reinforcement, _damage_control) general and specific reinforcement
    left / 10 (D3.34); the damage control rating / 4 (0 for a ship the form does not govern)
    and the repairs due / 2, each at most 1 (D9.1, D9.2)."""
    if off_reinf >= 0:
        out[off_reinf] = reinf_general[b, u] / REINFORCE_GENERAL_MAX
        for k in range(N_SHIELDS):
            out[off_reinf + 1 + k] = reinf_specific[b, u, k] / REINFORCE_SPECIFIC_MAX
    if off_dc >= 0:
        dc = rating(dac_boxes, dc_rating, dc_box, b, u) if governed else 0
        out[off_dc] = min(1.0, dc / 4.0)
        for k in range(N_SHIELDS):
            out[off_dc + 1 + k] = min(1.0, dc_repairs[b, u, k] / 2.0)


# ---------------------------------------------------------------------- actions


@kernel(_nrt=False, error_model="numpy")
def decode(action, c: int, flags: int, u: int, b: int, reinforce_general, reinforce,
           reinforce_hold, repair_boxes, reserve_shields) -> None:
    """(energy_actions ``ReinforceGeneral``, ``Reinforce``, ``ReinforceHold``, ``RepairBoxes``,
    ``ReserveShields``.to_orders) from component ``c``."""
    if flags & 1:
        reinforce_general[b, u] = action[c]
        for k in range(N_SHIELDS):
            reinforce[b, N_SHIELDS * u + k] = action[c + 1 + k]
        reinforce_hold[b, u] = action[c + 1 + N_SHIELDS]
        c += 2 + N_SHIELDS
    if flags & 2:
        for k in range(N_SHIELDS):
            repair_boxes[b, N_SHIELDS * u + k] = action[c + k]
        c += N_SHIELDS
    if flags & 4:
        reserve_shields[b, u] = action[c]


def component_names(flags: int) -> list[str]:
    """The engineering components' names in action order (``EnergyLayout.components``)."""
    out = []
    if flags & 1:
        out += (["reinforce_general"] + [f"reinforce[{k}]" for k in range(N_SHIELDS)]
                + ["reinforce_hold"])
    if flags & 2:
        out += [f"repair[{k}]" for k in range(N_SHIELDS)]
    if flags & 4:
        out.append("reserve_shields")
    return out


def dc_rating_table(setup, governed: np.ndarray, dc_box: int) -> np.ndarray:
    """(energy_form.dc_rating, D9.1) ``[u, boxes left]``: the track's rating under the standard
    DAC for a full-size ship, else the printed rating (a cadet ship among full-size ones:
    CTH-DATA §7.5); 0 for a ship the form does not govern."""
    from sfb_env.engine.dac import track_rating

    n_units = len(setup.unit_ids)
    dac = np.asarray(setup.start_state.dac_boxes)
    width = 1 + max([int(dac[:, dc_box].max(initial=0))]
                    + [len(getattr(c, "damage_control_track", ()) or ())
                       for c in setup.ship_classes if c is not None])
    out = np.zeros((n_units, width), np.int64)
    for u, ship in enumerate(setup.ship_classes):
        if ship is None or not governed[u]:
            continue
        if ship.kind == "full" and setup.rules.damage == "standard_dac":
            track = ship.damage_control_track
            for left in range(len(track) + 1):
                out[u, left] = track_rating(track, left)
        else:
            out[u, :] = int(ship.damage_control)
    return out
