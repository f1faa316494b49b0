"""Transporters and shield drops in compiled code (``engine.transporters``, G8.0, G8.24;
CTH-DATA §8.4, §7.3, §7.4, §1.6).

``transporter_tables(setup)`` builds ``TransporterTables`` (``on`` False where
``rules.transporters`` is off: ``procedure.advance`` then calls nothing here). State
(``BatchState``, as the reference's): ``tran_used_turn`` (B, U, T) the turn each transporter
last operated, ``tran_powered`` (B, U) the uses paid this turn, ``shield_drop_until`` /
``shield_held`` (B, U, 6) a dropped shield's return and its boxes; the parties and crew units
they move are ``compiled.boarding``'s (``boarding_parties``, ``crew_units``). Orders:
``BatchOrders.transporters`` (B, U) uses to power, ``transport`` (B, U * T) the target row * 2
+ (0 beam a boarding party, 1 lift a crew unit), -1 none, ``drop_shield`` (B, U) 1..6.

Rules applied (each as ``engine.transporters``):

* energy (``pay_uses``, priority 5e of the standard form, after the tractor beams): 1 energy
  powers up to 5 uses, rounded up (G8.0, CTH-DATA §7.3), paid whole or not at all
  (``EnergyShortfall`` "transporters");
* the Shields/Transporters step (``step``, after Launch Seeking Weapons): dropped shields whose
  1/4 turn is over come back up with their boxes (at most the printed ones), the ordered drops
  (G8.24: ``ShieldDropped``, specific reinforcement on the shield lost, PROPOSAL [P-100]), then
  every transporter order in unit and transporter order: an order no longer open is refused
  without using the transporter (``Transported`` with the rule); general reinforcement on the
  receiving unit (D3.341) or the target's struck shield up (D3.41, D3.42: ``shields.
  struck_shield``, its die where the boundary rule rolls one) stops one that used it; else a
  boarding party beams over (D7.0) or a crew unit is lifted (G8.0);
* the predicate of masks and execution (``transport_rule``): the transporter working, unused
  this turn and paid for (the form's uses), range 5, boarding parties only onto ships,
  freighters (J4.42, PROPOSAL [P-101]) and the monster (a party beamed over destroys it once
  its side found kill method 5, SCENARIOS §2.8, PROPOSAL [P-114]), crew only from a unit of
  the ship's side, no transport through an active shield of either unit facing the other
  (CTH-DATA §1.6; a freighter's pool up blocks every way; unpaid shields are down, §7.4).

The env side (``observe.extras``): the ``transporters``, ``transport[t]`` and ``drop_shield``
masks and the ``boarding`` rule features (``observe_part``); ``actions.decode_action`` writes
the orders (``decode``). ``Transported``'s ``result`` is a code with its values in the row's
next columns (``event_codes.TRANSPORT_RESULTS``). A planet's survivors go aboard their own
side's units only (G8.0 consent: ``R_CONSENT``, ``compiled.planets``). Not ported
(``transporter_tables`` refuses): reserve power for transporters (H7.2), fractional
accounting (B3.2: 1/5 energy a use).
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env.compiled import event_codes, kill_methods, planets, shields
from sfb_env.compiled.dispatch import kernel
from sfb_env.compiled.purse import log_shortfall, pay
from sfb_env.engine import transporters as ref
from sfb_env.engine.types import ACTIVE, K_FREIGHTER, K_MONSTER, K_PLANET, K_SHIP, Box

RANGE = ref.RANGE  # (G8.0) transporter range
PER_ENERGY = ref.USES_PER_ENERGY  # (G8.0) 1 energy powers up to 5 uses
_TRAN = int(Box.TRANSPORTER)
_WARP, _IMPULSE, _APR, _BATTERY = int(Box.WARP), int(Box.IMPULSE), int(Box.APR), \
    int(Box.BATTERY)
BEAM, LIFT = 0, 1  # ``BatchOrders.transport`` = target * 2 + this (TransportOrder - 1)
ITEM_TRANSPORTERS = event_codes.word("item", "transporters")
WHAT_PARTY = event_codes.word("what", "boarding party")
WHAT_CREW = event_codes.word("what", "crew unit")
TRANSPORTED = event_codes.CODE["Transported"]
SHIELD_DROPPED = event_codes.CODE["ShieldDropped"]
# the ``Transported`` results (event_codes.TRANSPORT_RESULTS, in that order)
(R_DONE, R_SHIP_GONE, R_CAPTURED, R_DESTROYED, R_IMPULSE, R_USED, R_NO_USES, R_NO_TARGET,
 R_TARGET_GONE, R_RANGE, R_KIND, R_NO_PARTY, R_ENEMY, R_NO_CREW, R_POOL, R_SHIELD, R_GR,
 R_FACING, R_CONSENT) = range(19)

TransporterTables = namedtuple("TransporterTables", (
    "on",  # bool rules.transporters
    "count",  # (U,) int64 TRAN boxes on each sheet (``transporters.sheet_count``)
    "form_pays",  # (U,) bool the standard form pays the unit's uses (``paid_by_form``)
    "quarter",  # int 1/4 turn in impulses (G8.24 a drop's length)
    "init_shields",  # (U, 6) int64 the printed shield boxes (a raised shield's limit)
    "crew_side",  # (U,) int64 (G8.0) the side of a planet's survivors (planets.PlanetTables)
))


def transporter_tables(setup) -> TransporterTables:
    """The transporter kernels' tables of ``setup``; raises ``NotImplementedError`` on what is
    not ported (see the module docstring)."""
    rules = setup.rules
    st = setup.start_state
    n = len(setup.unit_ids)
    on = bool(rules.transporters)
    if on:
        for flag, why in (("reserve_power", "reserve power powering transporters (H7.2)"),
                          ("fractional_accounting", "fractional accounting (B3.2)")):
            if getattr(rules, flag):
                raise NotImplementedError(f"compiled transporters (G8.0): beside {why} not "
                                          "ported")
    count = np.zeros(n, np.int64)
    form_pays = np.zeros(n, np.bool_)
    for u, ship in enumerate(setup.ship_classes):
        count[u] = int(ship.systems.get("transporter", 0)) if ship is not None else 0
        form_pays[u] = bool(rules.standard_energy and rules.energy_form  # (governed)
                            and st.controllers[u] == "agent" and int(st.kind[u]) == K_SHIP)
    from sfb_env import impulse
    if not on:
        count[:] = 0  # (knowledge.transporter_uses_left: none where the rule is off)
    return TransporterTables(on=on, count=count, form_pays=form_pays,
                             quarter=int(impulse.quarter_turn(int(st.impulses_per_turn))),
                             init_shields=np.asarray(st.shields, np.int64).copy(),
                             crew_side=planets.planet_tables(setup).crew_side)


# ---------------------------------------------------------------------- who, when


@nb.njit(cache=True, inline="always")
def paid_by_form(s, form_pays, b: int, u: int) -> bool:
    """(transporters.paid_by_form) the standard form governs the unit (not once captured:
    its captor's pilot has no form)."""
    return form_pays[u] and s.captured_by[b, u] < 0


@nb.njit(cache=True, inline="always")
def used_this_turn(s, b: int, u: int) -> int:
    n = 0
    for t in range(s.tran_used_turn.shape[2]):
        if s.tran_used_turn[b, u, t] == s.turn[b]:
            n += 1
    return n


@nb.njit(cache=True, inline="always")
def controller_side(s, b: int, u: int) -> int:
    """(boarding.controller_side) the captor, else the unit's own side."""
    c = s.captured_by[b, u]
    return c if c >= 0 else s.side[b, u]


@nb.njit(cache=True, inline="always")
def uses_left(s, count, form_pays, b: int, u: int) -> int:
    """(knowledge.transporter_uses_left) the uses paid (else the working transporters), at most
    the working ones, less those used this turn."""
    if count[u] == 0:
        return 0
    work = s.boxes[b, u, _TRAN]
    paid = s.tran_powered[b, u] if paid_by_form(s, form_pays, b, u) else work
    return max(0, min(paid, work) - used_this_turn(s, b, u))


@kernel(_nrt=False, error_model="numpy")
def transporter_rule(s, count, form_pays, b: int, u: int, t: int) -> int:
    """(transporters.transporter_blocker) 0 where transporter ``t`` of ``u`` may operate now,
    else the result code of the rule."""
    if t >= count[u]:
        return R_NO_TARGET  # (never asked: the component is padding)
    if s.status[b, u] != ACTIVE:
        return R_SHIP_GONE
    if s.captured_by[b, u] >= 0:
        return R_CAPTURED  # [P-103]
    if t >= s.boxes[b, u, _TRAN]:
        return R_DESTROYED
    if s.impulse[b] < 1:
        return R_IMPULSE
    if s.tran_used_turn[b, u, t] == s.turn[b]:
        return R_USED
    if paid_by_form(s, form_pays, b, u) and used_this_turn(s, b, u) >= s.tran_powered[b, u]:
        return R_NO_USES  # (no reserve power: refused by transporter_tables)
    return 0


@nb.njit(cache=True, inline="always")
def facing_bits(s, ft, b: int, u: int, o: int) -> int:
    """(transporters.facing_shields) bits of ``u``'s shields facing ``o``: at range 0 the
    previous positions (D3.42), all six where they shared the hex then too."""
    if s.x[b, u] == s.x[b, o] and s.z[b, u] == s.z[b, o]:
        ux, uz, uf = s.prev_x[b, u], s.prev_z[b, u], s.prev_facing[b, u]
        ox, oz = s.prev_x[b, o], s.prev_z[b, o]
        if ux == ox and uz == oz:
            return 63
    else:
        ux, uz, uf = s.x[b, u], s.z[b, u], s.facing[b, u]
        ox, oz = s.x[b, o], s.z[b, o]
    return shields.shield_bits(ft, ux, uz, uf, ox, oz)


@kernel(_nrt=False, error_model="numpy")
def shield_rule(s, ft, b: int, u: int, o: int) -> int:
    """(transporters.shield_blocker) 0, or R_POOL / R_SHIELD where ``u``'s shields facing
    ``o`` are all up (a freighter's pool: up at all)."""
    k = s.kind[b, u]
    if k not in (K_SHIP, K_FREIGHTER) or not s.shields_active[b, u]:
        return 0
    if s.shield_pool[b, u]:
        return R_POOL if s.shields[b, u, 0] > 0 else 0
    bits = facing_bits(s, ft, b, u, o)
    for k in range(6):
        if (bits >> k) & 1 and s.shields[b, u, k] <= 0:
            return 0
    return R_SHIELD


@kernel(_nrt=False, error_model="numpy")
def transport_rule(s, ft, count, form_pays, crew_side, b: int, u: int, t: int, what: int,
                   target: int) -> int:
    """(transporters.transport_blockers) 0 where transporter ``t`` of ``u`` may carry out
    ``what`` (BEAM, LIFT) with ``target`` now, else the rule's result code."""
    rule = transporter_rule(s, count, form_pays, b, u, t)
    if rule:
        return rule
    if target < 0 or target >= s.kind.shape[1] or target == u:
        return R_NO_TARGET
    if s.status[b, target] != ACTIVE:
        return R_TARGET_GONE
    if shields.distance(s.x[b, u], s.z[b, u], s.x[b, target], s.z[b, target]) > RANGE:
        return R_RANGE
    k = s.kind[b, target]
    if what == BEAM:
        if k not in (K_SHIP, K_FREIGHTER, K_MONSTER):  # (J4.42, [P-101]; the monster:
            return R_KIND  # SCENARIOS §2.8 kill method 5)
        if s.boarding_parties[b, u, s.side[b, u]] <= 0:
            return R_NO_PARTY
    else:
        if k == K_PLANET:  # (G8.0) survivors: their own side only (planets.consent_blocker)
            if crew_side[target] >= 0 and crew_side[target] != s.side[b, u]:
                return R_CONSENT
        elif controller_side(s, b, target) != s.side[b, u]:
            return R_ENEMY
        if s.crew_units[b, target] <= 0:
            return R_NO_CREW
    rule = shield_rule(s, ft, b, u, target)
    if rule:
        return rule
    return shield_rule(s, ft, b, target, u)


# ---------------------------------------------------------------------- energy


@nb.njit(cache=True, inline="always")
def pay_uses(s, et, b: int, u: int, p, uses_ordered: int) -> int:
    """(transporters.pay_energy, priority 5e) the uses ordered (at most the working
    transporters), 1 energy per 5 rounded up, whole or not at all; returns the energy short."""
    uses = min(uses_ordered, s.boxes[b, u, _TRAN])
    s.tran_powered[b, u] = 0
    if uses <= 0:
        return 0
    cost = (uses + PER_ENERGY - 1) // PER_ENERGY
    if pay(p, cost, False, True):
        s.tran_powered[b, u] = uses
        return 0
    log_shortfall(s, et, b, u, ITEM_TRANSPORTERS, cost)
    return cost


@nb.njit(cache=True, inline="always")
def energy_open(s, b: int, u: int, k: int, allocation: bool) -> bool:
    """(transporters.energy_blockers) ``transporters`` value k >= 1: at Energy Allocation, at
    most the working transporters, its energy within ship power and charged batteries
    (``energy_form.reach``)."""
    if not allocation or k > s.boxes[b, u, _TRAN]:
        return False
    charged = min(s.batteries[b, u], s.boxes[b, u, _BATTERY])
    reach = s.boxes[b, u, _WARP] + s.boxes[b, u, _IMPULSE] + s.boxes[b, u, _APR] + charged
    return (k + PER_ENERGY - 1) // PER_ENERGY <= reach


# ---------------------------------------------------------------------- the step


@kernel(_nrt=False, error_model="numpy")
def step(s, ft, tt, b: int, o_drop, o_transport, ipt: int) -> None:
    """(transporters.step) The Shields/Transporters step: dropped shields due back come up,
    the ordered drops (G8.24), then every transporter order (G8.0), units and transporters in
    order."""
    now = (s.turn[b] - 1) * ipt + s.impulse[b]
    n_u = s.kind.shape[1]
    for u in range(n_u):
        for k in range(6):
            until = s.shield_drop_until[b, u, k]
            if until != 0 and until <= now:  # (raise_shield) the held boxes back, at most
                s.shields[b, u, k] = min(tt.init_shields[u, k],  # the printed ones
                                         s.shields[b, u, k] + s.shield_held[b, u, k])
                s.shield_held[b, u, k] = 0
                s.shield_drop_until[b, u, k] = 0
                _dropped_event(s, b, u, k + 1, 0)
    for u in range(n_u):
        sh = o_drop[b, u]
        if sh > 0:
            k = sh - 1
            if not s.shield_drop_until[b, u, k]:
                s.shield_held[b, u, k] = s.shields[b, u, k]
                s.shields[b, u, k] = 0
                s.reinf_specific[b, u, k] = 0  # [P-100] no specific reinforcement on it
            s.shield_drop_until[b, u, k] = now + tt.quarter
            _dropped_event(s, b, u, sh, s.shield_drop_until[b, u, k])
    n_t = s.tran_used_turn.shape[2]
    for u in range(n_u):
        for t in range(n_t):
            v = o_transport[b, n_t * u + t]
            if v >= 0:
                _transport(s, ft, tt, b, u, t, v % 2, v // 2)


@nb.njit(cache=True, inline="always")
def _dropped_event(s, b, u, shield, until):
    r = event_codes.begin(s.ev, s.ev_count, b, SHIELD_DROPPED, s.turn[b], s.impulse[b])
    s.ev[b, r, 3] = u
    s.ev[b, r, 4] = shield
    s.ev[b, r, 5] = until


@nb.njit(cache=True, inline="always")
def _transport(s, ft, tt, b, u, t, what, target):
    """(transporters.transport) One transporter action."""
    src, dst = (u, target) if what == BEAM else (target, u)
    rule = transport_rule(s, ft, tt.count, tt.form_pays, tt.crew_side, b, u, t, what, target)
    if rule:
        p0, p1 = t, 0
        if rule == R_NO_USES:
            p0 = s.tran_powered[b, u]
        elif rule == R_CONSENT:  # (the planet, the survivors' side)
            p0, p1 = target, tt.crew_side[target]
        elif rule in (R_POOL, R_SHIELD):  # (which unit's shields are up)
            own = shield_rule(s, ft, b, u, target) != 0
            p0 = u if own else target
            other = target if own else u
            p1 = s.shields[b, p0, 0] if rule == R_POOL else facing_bits(s, ft, b, p0, other)
        _transported(s, b, u, t, what, src, dst, rule, p0, p1)
        return
    s.tran_used_turn[b, u, t] = s.turn[b]
    if s.reinf_general[b, dst] > 0:  # (D3.341, CTH-DATA §7.4) general reinforcement blocks
        _transported(s, b, u, t, what, src, dst, R_GR, dst, 0)
        return
    k = s.kind[b, target]
    if (k in (K_SHIP, K_FREIGHTER) and controller_side(s, b, target) != s.side[b, u]
            and s.shields_active[b, target] and not s.shield_pool[b, target]):
        same = s.x[b, target] == s.x[b, u] and s.z[b, target] == s.z[b, u]
        sh = shields.struck_shield(s, ft, b, target, u, same)  # (D3.41, D3.42)
        if sh and s.shields[b, target, sh - 1] > 0:
            _transported(s, b, u, t, what, src, dst, R_FACING, target, sh)
            return
    if what == BEAM:
        side = s.side[b, u]
        s.boarding_parties[b, u, side] -= 1
        s.boarding_parties[b, target, side] += 1
    else:
        s.crew_units[b, target] -= 1
        s.crew_units[b, u] += 1
    _transported(s, b, u, t, what, src, dst, R_DONE, 0, 0)
    if what == BEAM and k == K_MONSTER:  # (SCENARIOS §2.8 kill method 5, PROPOSAL [P-114])
        kill_methods.struck_by(s.status, s.kind, s.side, s.kill_methods, s.ev, s.ev_count,
                               s.turn[b], s.impulse[b], b, target, kill_methods.BOARDING, u)


@nb.njit(cache=True, inline="always")
def _transported(s, b, u, t, what, src, dst, rule, p0, p1):
    r = event_codes.begin(s.ev, s.ev_count, b, TRANSPORTED, s.turn[b], s.impulse[b])
    s.ev[b, r, 3] = u
    s.ev[b, r, 4] = t
    s.ev[b, r, 5] = WHAT_PARTY if what == BEAM else WHAT_CREW
    s.ev[b, r, 6] = src
    s.ev[b, r, 7] = dst
    s.ev[b, r, 8] = rule
    s.ev[b, r, 9] = p0  # (event_codes.TRANSPORT_RESULTS: the result's values)
    s.ev[b, r, 10] = p1


# ---------------------------------------------------------------------- the env side


@kernel(_nrt=False, error_model="numpy")
def observe_part(s, ft, count, form_pays, crew_side, b: int, u: int, live: bool,
                 allocation: bool,
                 m_energy: int, n_energy: int, m_transport: int, n_transport: int,
                 m_drop: int, k: int, slots, n_slots: int, m, out, off: int) -> None:
    """The ``transporters`` (``n_energy`` values), ``transport[t]`` (2 k + 1 values: 0 none,
    1 + j beam a party to slot j, k + 1 + j lift a crew unit from it) and ``drop_shield`` (7)
    masks where ``live`` (``transport_actions``; padding closed), and the ``boarding`` rule
    features at ``off`` (``rule_features._boarding``): uses left, shields dropped, then for the
    ship and each slot the parties of our side and of the others, control stations, crew
    units, captured."""
    real = count[u]
    if live:
        if m_energy >= 0:
            m[m_energy] = 1
            for v in range(1, n_energy):
                m[m_energy + v] = (v <= real and paid_by_form(s, form_pays, b, u)
                                   and energy_open(s, b, u, v, allocation))
        at = m_transport
        for t in range(n_transport):
            m[at] = 1
            ok = t < real and transporter_rule(s, count, form_pays, b, u, t) == 0
            for j in range(k):
                if ok and j < n_slots:
                    m[at + 1 + j] = transport_rule(s, ft, count, form_pays, crew_side, b, u,
                                                   t, BEAM, slots[j]) == 0
                    m[at + 1 + k + j] = transport_rule(s, ft, count, form_pays, crew_side, b,
                                                       u, t, LIFT, slots[j]) == 0
                else:
                    m[at + 1 + j] = 0
                    m[at + 1 + k + j] = 0
            at += 2 * k + 1
        m[m_drop] = 1
        ship = (real > 0 and s.status[b, u] == ACTIVE and s.kind[b, u] == K_SHIP
                and not s.shield_pool[b, u] and s.impulse[b] >= 1)
        for sh in range(6):
            m[m_drop + 1 + sh] = ship and not (s.shields[b, u, sh] <= 0
                                               and not s.shield_drop_until[b, u, sh])
    if off < 0:
        return
    out[off] = min(1.0, uses_left(s, count, form_pays, b, u) / PER_ENERGY)
    for sh in range(6):
        out[off + 1 + sh] = 1.0 if s.shield_drop_until[b, u, sh] > 0 else 0.0
    side = s.side[b, u]
    for j in range(-1, n_slots):
        t = u if j < 0 else slots[j]
        at = off + 7 + (j + 1) * 5
        ours = s.boarding_parties[b, t, side] if side >= 0 else 0
        total = 0
        for x in range(s.boarding_parties.shape[2]):
            total += s.boarding_parties[b, t, x]
        out[at] = min(1.0, ours / 20.0)
        out[at + 1] = min(1.0, (total - ours) / 20.0)
        out[at + 2] = min(1.0, s.control_stations[b, t] / 8.0)
        out[at + 3] = min(1.0, s.crew_units[b, t] / 4.0)
        out[at + 4] = 1.0 if s.captured_by[b, t] >= 0 else 0.0


@kernel(_nrt=False, error_model="numpy")
def decode(action, c_energy: int, c_transport: int, n_transport: int, c_drop: int, real: int,
           n_t: int, k: int, u: int, slots, b: int, o_uses, o_transport, o_drop) -> None:
    """(transport_actions ``to_orders``) the agent's ``transporters``, ``transport[t]`` and
    ``drop_shield`` values into the orders (its real transporters; padding is masked)."""
    if c_energy >= 0:
        o_uses[b, u] = action[c_energy]
    for t in range(min(n_transport, real)):
        v = action[c_transport + t]
        if v > 0:
            what = BEAM if v <= k else LIFT
            o_transport[b, n_t * u + t] = 2 * slots[(v - 1) % k] + what
    o_drop[b, u] = action[c_drop]
