"""The Lyran Expanding Sphere Generator (G23) in compiled code: ``engine.esg_field`` over
``engine.esg``, one resolver per rule area.

* ``energy_allocation``: the Chief Engineer tops every working generator up (G23.21, G23.22;
  ``esg_field.energy_allocation``), at Energy Allocation, before Speed Determination (the
  cadet form pays it at priority 6 instead: ``compiled.energy``, ``pay_esg``).
* ``launch_step``: the generators' part of Launch Seeking Weapons (``esg_field.launch_step``):
  a drop (G23.47), expiry (G23.32) and release (G23.31, G23.42-G23.44), then a cancellation
  (G23.33) or an announcement (G23.31, G23.41), in weapon-row order; a generator whose box or
  ship is gone loses its field and its energy.
* ``resolve_contacts``: the fields against the units that met them in this impulse's movement
  (``esg_field.resolve_contacts``: G23.51-G23.574, G23.511, G23.512, G23.513, G23.52, G23.72),
  after Move Seeking Weapons, before Resolve Seeking Weapons.
* ``order_bits``: the ``esg[g]`` mask (``esg_field.order_blockers``: ``esg.can_announce``,
  ``can_cancel``, ``can_drop``); ``block`` and ``fields_seen``: the observation's ESG block and
  its ``esg_fields`` rule features (G23.46).

Ported: one ship with generators per battle (the Lyran cadet cruiser's one, CTH-DATA §9.1; the
Lyran Tiger's two, §9.2, both fields met in the G23.122 order) against ships, freighters,
drones and target drones (cloaked or not: the reference has no cloak rule for fields), the
Chief Engineer's and the cadet form's charge, fighters and shuttles (G23.515: ranked as
shuttles, destroyed at 10 / 6 points, J4.49, J1.0), no planets. ``esg_tables``
refuses the rest (``NotImplementedError``): the fields of two ships (G23.71-G23.73: overlaps at
release, fields meeting in movement), the reserve power path (G23.212,
``esg_field.reserve_step``) and the standard form's charge; ``resolve_contacts`` refuses a
planet or monster meeting a field (G23.65). Plasma torpedoes are
immune (G23.81).

Times are absolute impulses (``(turn - 1) * I + impulse``), ``NEVER`` for none, as the
reference's ``esg_*`` arrays hold them.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

from sfb_env import tables
from sfb_env.compiled import damage, event_codes, handle, shields
from sfb_env.compiled import dice as dice_mod
from sfb_env.compiled.dispatch import kernel
from sfb_env.engine.esg import ContactSize, Entry, EsgPhase
from sfb_env.engine.esg_field import SHIP_NEEDS
from sfb_env.engine.types import (
    ACTIVE,
    K_DRONE,
    K_FIGHTER,
    K_FREIGHTER,
    K_PLASMA,
    K_SHIP,
    K_SHUTTLE,
    K_TARGET_DRONE,
    NEVER,
    EsgOrder,
)

ESG_CHARGED = event_codes.CODE["EsgCharged"]
ESG_ANNOUNCED = event_codes.CODE["EsgAnnounced"]
ESG_CANCELLED = event_codes.CODE["EsgCancelled"]
ESG_RELEASED = event_codes.CODE["EsgReleased"]
ESG_DROPPED = event_codes.CODE["EsgDropped"]
ESG_STRUCK = event_codes.CODE["EsgStruck"]
VOLUNTARY = event_codes.word("reason", "voluntary")
EXPIRED = event_codes.word("reason", "expired")
EXHAUSTED = event_codes.word("reason", "exhausted")
GONE = event_codes.word("reason", "destroyed")
CONTACT_WORD = np.array([-1, event_codes.word("contact", "enters"),
                         event_codes.word("contact", "from_inside"),
                         event_codes.word("contact", "jumps")], dtype=np.int64)  # by Entry
IDLE, ANNOUNCED, OPERATING = int(EsgPhase.IDLE), int(EsgPhase.ANNOUNCED), int(EsgPhase.ACTIVE)
ANNOUNCE_0, ANNOUNCE_3 = int(EsgOrder.ANNOUNCE_0), int(EsgOrder.ANNOUNCE_3)
CANCEL, DROP = int(EsgOrder.CANCEL), int(EsgOrder.DROP)
ANNOUNCE_BITS = sum(1 << v for v in range(ANNOUNCE_0, ANNOUNCE_3 + 1))
E_NONE, E_ENTERS = int(Entry.NONE), int(Entry.ENTERS)
E_INSIDE, E_JUMPS = int(Entry.ENTERS_FROM_INSIDE), int(Entry.JUMPS)
SIZE_DRONE, SIZE_FREIGHTER, SIZE_SHIP = (int(ContactSize.DRONE), int(ContactSize.FREIGHTER),
                                         int(ContactSize.SHIP))
SIZE_SHUTTLE = int(ContactSize.SHUTTLE)  # (G23.52 step 5) shuttles and fighters
FIELDS_SEEN = 2  # (knowledge.ESG_FIELD_GENERATORS) generators shown per ship
RADIUS_SCALE = 3.0  # (G23.41) observation_layout.ESG / ESG_FIELD "radius"
STRENGTH_SCALE = 20.0  # (G23.42) observation_layout.ESG_STRENGTH_SCALE
_WORK = 8  # scratch values per contact (unit, entry, size, shield, needed, tie, scored, order)

EsgTables = namedtuple("EsgTables", (
    "rows",  # (n,) int64 the generators in use (``esg_field.esg_rows``), weapon-row order
    "esg_max",  # (W,) int64 capacity (G23.22; the cold ``esg_max``)
    "strength",  # (4, ESG_MAX_ENERGY) int64 field strength by radius and energy - 1 (G23.42)
    "ipt",  # impulses per turn: the active period and reactivation delay (G23.32, G23.323)
    "lead",  # (G23.31) impulses from announcement to release: I / 8
    "lockout",  # (G23.33) no announcement within 1/4 turn of a cancellation
    "chief",  # bool: the Chief Engineer charges the generators (SCENARIOS §2.1)
    "work",  # int64 scratch of resolve_contacts: _WORK values per unit
))

# The BatchState arrays of the generators (``esg_view``): the kernels take this view, not the
# whole state (numba's compile time grows with the fields of an argument).
ESG_FIELDS = ("esg_stored", "esg_phase", "esg_radius", "esg_strength", "esg_announced_at",
              "esg_release_at", "esg_activated_at", "esg_dropped_at", "esg_cancelled_at",
              "esg_struck_at")
EsgArrays = namedtuple("EsgArrays", ESG_FIELDS)


@nb.njit(cache=True, inline="always")
def esg_view(s):
    """The ``EsgArrays`` view of BatchState ``s`` (the same arrays)."""
    return EsgArrays(s.esg_stored, s.esg_phase, s.esg_radius, s.esg_strength,
                     s.esg_announced_at, s.esg_release_at, s.esg_activated_at,
                     s.esg_dropped_at, s.esg_cancelled_at, s.esg_struck_at)


def view_of(s) -> EsgArrays:
    """``esg_view`` in plain Python (tests)."""
    return EsgArrays(*(getattr(s, f) for f in ESG_FIELDS))


def esg_tables(setup) -> EsgTables:
    """The static tables of the ESG kernels for one setup; raises ``NotImplementedError`` on
    what they do not port (see the module docstring)."""
    st = setup.start_state
    rules = setup.rules
    rows = np.flatnonzero((np.asarray(st.esg_max) > 0) & np.asarray(st.w_enabled))
    owners = [int(st.w_owner[w]) for w in rows]
    if len(rows):
        if len(rows) > 62:  # (resolve_contacts_a keeps the fields resolved as int64 bits)
            raise NotImplementedError("compiled ESG: more than 62 generators")
        if len(set(owners)) > 1:
            raise NotImplementedError("compiled ESG: fields of two ships (G23.71-G23.73)")
        if rules.reserve_power:
            raise NotImplementedError("compiled ESG: reserve power into a generator (G23.212)")
        if not (rules.chief_engineer or rules.energy_form):
            raise NotImplementedError("compiled ESG: only the Chief Engineer's and the forms' "
                                      "charge (G23.21)")
    ipt = int(st.impulses_per_turn)
    return EsgTables(
        rows=rows.astype(np.int64), esg_max=np.asarray(st.esg_max, dtype=np.int64).copy(),
        strength=np.ascontiguousarray(tables.esg_chart(), dtype=np.int64),
        ipt=ipt, lead=ipt // 8, lockout=ipt // 4, chief=bool(rules.chief_engineer),
        work=np.zeros((_WORK + 1 + len(rows)) * max(1, len(setup.unit_ids)), dtype=np.int64))


# ---------------------------------------------------------------------- generator records


@nb.njit(cache=True, inline="always")
def _deactivate(g, b, w, at):
    """``esg._deactivate``: no field, no radius, no strength; dropped at ``at`` (G23.323)."""
    g.esg_phase[b, w] = IDLE
    g.esg_radius[b, w] = -1
    g.esg_strength[b, w] = 0
    g.esg_dropped_at[b, w] = at


@nb.njit(cache=True, inline="always")
def _event(ev, ev_count, b, code, turn, imp, owner, w):
    r = event_codes.begin(ev, ev_count, b, code, turn, imp)
    ev[b, r, 3] = owner
    ev[b, r, 4] = w
    return r


@nb.njit(cache=True, inline="always")
def _turn_of(t, ipt):
    return (t - 1) // ipt + 1


# ---------------------------------------------------------------------- Energy Allocation


@kernel(_nrt=False, error_model="numpy")
def energy_allocation_a(g, et, status, w_owner, w_destroyed, ev, ev_count, turn, b):
    """``esg_field.energy_allocation`` (G23.21, G23.22, SCENARIOS §2.1): the Chief Engineer
    fills every working generator of a ship in play (``EsgCharged``, logged at impulse 0)."""
    if not et.chief:
        return
    for i in range(et.rows.shape[0]):
        w = et.rows[i]
        owner = w_owner[b, w]
        if w_destroyed[b, w] or status[b, owner] != ACTIVE:
            continue
        energy = et.esg_max[w] - g.esg_stored[b, w]
        if energy > 0:
            g.esg_stored[b, w] += energy
            r = _event(ev, ev_count, b, ESG_CHARGED, turn[b], 0, owner, w)
            ev[b, r, 5] = energy
            ev[b, r, 6] = g.esg_stored[b, w]


@nb.njit(cache=True, inline="always")
def energy_allocation(s, et, b):
    """The phase entry point on BatchState ``s`` (where the battle has a generator)."""
    if et.rows.shape[0] > 0:
        energy_allocation_a(esg_view(s), et, s.status, s.w_owner, s.w_destroyed, s.ev,
                            s.ev_count, s.turn, b)


# ---------------------------------------------------------------------- Launch Seeking Weapons


@kernel(_nrt=False, error_model="numpy")
def launch_step_a(p, b):
    """``esg_field.launch_step``: per generator in row order, its ``orders[b, w]``
    (``EsgOrder``, validated by the mask) and its own timing: a drop at once (G23.47), then
    expiry (G23.32) before release (G23.711, G23.31: all stored energy, G23.42-G23.44; empty,
    dropped at once, G23.322), then a cancellation (G23.33) or an announcement (G23.31).
    ``p``: its arrays pinned (``launch_args``)."""
    (g, et, status, w_owner, w_destroyed, ev, ev_count, turn_arr, imp_arr,
     orders) = handle.deref(p)
    ipt = et.ipt
    turn, imp = turn_arr[b], imp_arr[b]
    now = (turn - 1) * ipt + imp
    for i in range(et.rows.shape[0]):
        w = et.rows[i]
        owner = w_owner[b, w]
        value = orders[b, w]
        if w_destroyed[b, w] or status[b, owner] != ACTIVE:
            if g.esg_phase[b, w] != IDLE:  # the box is gone: no field, no announcement
                g.esg_stored[b, w] = 0
                g.esg_announced_at[b, w] = NEVER
                g.esg_release_at[b, w] = NEVER
                g.esg_cancelled_at[b, w] = NEVER
                _deactivate(g, b, w, now)
                r = _event(ev, ev_count, b, ESG_DROPPED, turn, imp, owner, w)
                ev[b, r, 5] = GONE
            continue
        if value == DROP:  # (G23.47) at once
            _deactivate(g, b, w, now)
            r = _event(ev, ev_count, b, ESG_DROPPED, turn, imp, owner, w)
            ev[b, r, 5] = VOLUNTARY
        before = g.esg_phase[b, w]
        radius, stored = g.esg_radius[b, w], g.esg_stored[b, w]
        activated = g.esg_activated_at[b, w]
        if before == OPERATING and activated != NEVER and now >= activated + ipt:
            _deactivate(g, b, w, activated + ipt)  # (G23.32)
        release = g.esg_release_at[b, w]
        if g.esg_phase[b, w] == ANNOUNCED and release != NEVER:
            if now > release:
                raise RuntimeError("compiled ESG: the announced release impulse was skipped")
            if now == release:  # (G23.42-G23.44) all stored energy goes into the field
                strength = et.strength[radius, stored - 1] if stored > 0 else 0
                g.esg_phase[b, w] = OPERATING
                g.esg_stored[b, w] = 0
                g.esg_strength[b, w] = strength
                g.esg_release_at[b, w] = NEVER
                g.esg_activated_at[b, w] = now
                if strength == 0:  # (G23.322) released empty: dropped at once
                    _deactivate(g, b, w, now)
        if before == OPERATING and g.esg_phase[b, w] != OPERATING:
            r = _event(ev, ev_count, b, ESG_DROPPED, turn, imp, owner, w)
            ev[b, r, 5] = EXPIRED
        if before == ANNOUNCED and g.esg_activated_at[b, w] == now:
            r = _event(ev, ev_count, b, ESG_RELEASED, turn, imp, owner, w)
            ev[b, r, 5] = max(radius, 0)
            ev[b, r, 6] = stored
            ev[b, r, 7] = g.esg_strength[b, w] if g.esg_phase[b, w] != IDLE else 0
            if g.esg_phase[b, w] != OPERATING:
                r = _event(ev, ev_count, b, ESG_DROPPED, turn, imp, owner, w)
                ev[b, r, 5] = EXHAUSTED
            # (G23.71-G23.713) overlaps with another ship's field: esg_tables refuses two
        if value == CANCEL:  # (G23.33) not released: the G23.323 delay does not start
            g.esg_phase[b, w] = IDLE
            g.esg_radius[b, w] = -1
            g.esg_release_at[b, w] = NEVER
            g.esg_cancelled_at[b, w] = now
            _event(ev, ev_count, b, ESG_CANCELLED, turn, imp, owner, w)
        elif ANNOUNCE_0 <= value <= ANNOUNCE_3:  # (G23.31, G23.41) the radius kept secret
            g.esg_phase[b, w] = ANNOUNCED
            g.esg_radius[b, w] = value - ANNOUNCE_0
            g.esg_announced_at[b, w] = now
            g.esg_release_at[b, w] = now + et.lead
            at = now + et.lead - 1
            r = _event(ev, ev_count, b, ESG_ANNOUNCED, turn, imp, owner, w)
            ev[b, r, 5] = value - ANNOUNCE_0
            ev[b, r, 6] = at // ipt + 1
            ev[b, r, 7] = at % ipt + 1


@nb.njit(cache=True, inline="always")
def launch_args(s, et, o):
    """``launch_step_a``'s arguments (a batch keeps them
    in a handle: ``procedure.call_args``)."""
    return (esg_view(s), et, s.status, s.w_owner, s.w_destroyed, s.ev, s.ev_count,
            s.turn, s.impulse, o.esg)


@nb.njit(cache=True, inline="always")
def launch_step_pinned(p, et, b):
    """The phase entry point (where the battle has a generator), on ``launch_args`` pinned
    by the caller (``procedure.held_calls``)."""
    if et.rows.shape[0] > 0:
        launch_step_a(p, b)


# ---------------------------------------------------------------------- the order mask


@nb.njit(cache=True, inline="always")
def order_bits(esg_max, w_enabled, w_destroyed, stored, phase, announced_at, release_at,
               activated_at, dropped_at, cancelled_at, b, w, turn, imp, ipt, orders_open):
    """``esg_field.order_blockers`` as a bit set: bit v set = ``EsgOrder`` v (1..6) open for
    generator ``w`` now (0, no order, is always open). Inlined: a call passed its ten arrays
    at each of the tier-2 pass's two sites, per generator and agent."""
    if (w < 0 or esg_max[w] <= 0 or not w_enabled[b, w] or w_destroyed[b, w] or imp < 1
            or not orders_open):  # (G23.11, G23.14, G23.31, B2.0)
        return 0
    now = (turn - 1) * ipt + imp
    ph = phase[b, w]
    latest = max(max(0, announced_at[b, w]), max(activated_at[b, w], dropped_at[b, w]))
    latest = max(latest, cancelled_at[b, w])
    out = 0
    # esg.can_announce (G23.31, G23.33, G23.323, G23.21)
    ok = ph == IDLE and now >= latest
    if ok and cancelled_at[b, w] != NEVER and now - cancelled_at[b, w] < ipt // 4:
        ok = False
    release = now + ipt // 8
    if ok and activated_at[b, w] != NEVER and dropped_at[b, w] != NEVER:
        earliest = max(dropped_at[b, w] + ipt,
                       (_turn_of(activated_at[b, w], ipt) + 1) * ipt + 1)
        if release < earliest:
            ok = False
    if ok and stored[b, w] == 0 and _turn_of(release, ipt) == _turn_of(now, ipt):
        ok = False  # across a turn break Energy Allocation may charge it first (CTH-DATA §6)
    if ok:
        out |= ANNOUNCE_BITS
    # esg.can_cancel (G23.33): before the impulse of release
    if (ph == ANNOUNCED and release_at[b, w] != NEVER and now >= latest
            and now < release_at[b, w]):
        out |= 1 << CANCEL
    # esg.can_drop (G23.47, G23.711, G23.32)
    act = activated_at[b, w]
    if (ph == OPERATING and act != NEVER and now >= latest and now != act
            and now < act + ipt):
        out |= 1 << DROP
    return out


@kernel(_nrt=False, error_model="numpy")
def block(stored, phase, radius, strength, release_at, activated_at, esg_max, b, w, turn, imp,
          ipt, can_announce, out, at):
    """``env.observation._esg``: generator ``w``'s ESG block into ``out[at:at + 8]``
    (stored / capacity, announced, operating, radius / 3, strength / 20, impulses to the
    release / I, impulses to expiry / I, announcement open)."""
    now = (turn - 1) * ipt + imp
    ph = phase[b, w]
    release = release_at[b, w] - now if ph == ANNOUNCED else 0
    expires = activated_at[b, w] + ipt - now if ph == OPERATING else 0
    out[at] = stored[b, w] / max(1, esg_max[w])
    out[at + 1] = 1.0 if ph == ANNOUNCED else 0.0
    out[at + 2] = 1.0 if ph == OPERATING else 0.0
    out[at + 3] = max(0, radius[b, w]) / RADIUS_SCALE
    out[at + 4] = strength[b, w] / STRENGTH_SCALE
    out[at + 5] = max(0, release) / ipt
    out[at + 6] = max(0, expires) / ipt
    out[at + 7] = 1.0 if can_announce else 0.0


@kernel(_nrt=False, error_model="numpy")
def fields_seen(phase, radius, strength, unit_esg, b, t, out, at):
    """``rule_features._esg_fields_of`` (G23.46, ``knowledge.esg_fields_seen``): per generator
    of unit ``t`` (its first two) operating, radius / 3, min(1, strength / 20) into
    ``out[at:at + 6]`` (an announced field shows nothing)."""
    for k in range(FIELDS_SEEN):
        w = unit_esg[t, k]
        if w >= 0 and phase[b, w] == OPERATING:
            out[at + 3 * k] = 1.0
            out[at + 3 * k + 1] = max(0, radius[b, w]) / RADIUS_SCALE
            out[at + 3 * k + 2] = min(1.0, strength[b, w] / STRENGTH_SCALE)


# ---------------------------------------------------------------------- contact (Move Ships)


@nb.njit(cache=True, inline="always")
def _one_move(radius, before, after, inside):
    """``esg._one_move`` (G23.561, G23.562, G23.571, G23.72, G23.721, G23.723)."""
    if radius == 0:
        if after == 0:
            return E_NONE if before == 0 and inside else E_ENTERS
        if before == 0:
            return E_INSIDE if inside else E_NONE
        return E_NONE
    if after == radius:
        return E_INSIDE if before < radius else E_ENTERS
    if before == radius:
        return E_JUMPS if after < radius else E_NONE
    if (before - radius) * (after - radius) < 0:
        return E_JUMPS
    return E_NONE


@kernel(_nrt=False, error_model="numpy")
def field_entry(radius, before, after, ship_moved, unit_moved, inside, middle, unit_first):
    """``esg.field_entry`` (``middle`` -1 = None): how this impulse's moves meet a field of
    ``radius`` (``Entry``; G23.561-G23.574, G23.571 moves in their C1.3 order)."""
    if not (ship_moved or unit_moved):
        return E_NONE  # (G23.574, G23.561)
    if middle >= 0 and ship_moved and unit_moved:
        first = _one_move(radius, before, middle, inside)
        if unit_first:  # (G23.571) the unit's own move is judged before the ship moves
            return first if first != E_NONE else _one_move(radius, middle, after, inside)
        if first == E_JUMPS:
            return first  # the ship carried its ring across the unit
        if first != E_NONE:  # (G23.572) the unit's move may still take it clear
            return _one_move(radius, before, after, inside)
        return _one_move(radius, middle, after, inside)
    return _one_move(radius, before, after, inside)


@nb.njit(cache=True, inline="always")
def _direction(x0, z0, x1, z1):
    """``esg_field._direction``: 0..5 of the step (x0, z0) -> (x1, z1), -1 if not one."""
    for d in range(6):
        if x1 - x0 == shields.DIR_X[d] and z1 - z0 == shields.DIR_Z[d]:
            return d
    return -1


@kernel(_nrt=False, error_model="numpy")
def struck_shield(a, ft, b, u, owner, entry, ship_moved):
    """``esg_field._struck_shield`` (G23.513): the shield of ``u`` facing the generating ship
    as direct fire (D3.4; D3.42 in its hex); on an exact boundary the shield that faced the
    field hex entered; from inside, the opposite one (G23.5131)."""
    if not shields.has_facing_shields(a.kind, a.shield_pool, b, u):
        return 0
    xu, zu, fu = a.x[b, u], a.z[b, u], a.facing[b, u]
    xo, zo = a.x[b, owner], a.z[b, owner]
    if xu == xo and zu == zo:
        shield = shields.struck_shield(a, ft, b, u, owner, True)  # zero radius (D3.42)
    else:
        bits = shields.shield_bits(ft, xu, zu, fu, xo, zo)
        first, count = -1, 0
        for k in range(6):
            if (bits >> k) & 1:
                count += 1
                if first < 0:
                    first = k
        shield = first + 1
        if count == 2:
            unit_dir = _direction(a.prev_x[b, u], a.prev_z[b, u], xu, zu)
            ship_dir = _direction(a.prev_x[b, owner], a.prev_z[b, owner], xo, zo)
            faced = -1
            if unit_dir >= 0 and (not ship_moved or a.speed[b, u] <= a.speed[b, owner]):
                faced = unit_dir  # the hex it entered lay ahead of its move
            elif ship_dir >= 0:
                faced = (ship_dir + 3) % 6  # the field hex came from behind the ship's move
            if faced < 0:
                shield = shields.shield_from(a, ft, b, u, xu, zu, fu, xo, zo, owner, -1)
            else:
                want = (faced - fu) % 6  # the shield index facing that hex
                best_gap = 7
                for k in range(6):
                    if (bits >> k) & 1:
                        gap = min((k - want) % 6, (want - k) % 6)
                        if gap < best_gap:
                            best_gap = gap
                            shield = k + 1
    if entry == E_INSIDE:
        shield = (shield + 2) % 6 + 1  # the opposite shield (G23.5131)
    return shield


@kernel(_nrt=False, error_model="numpy")
def needed(a, ft, b, u, shield):
    """``esg_field._needed`` (G23.511): the points that would still destroy ``u`` struck on
    ``shield``."""
    kind = a.kind[b, u]
    if kind in (K_DRONE, K_TARGET_DRONE):
        return max(0, ft.drone_strength - a.damage[b, u])
    if kind in (K_FIGHTER, K_SHUTTLE):  # (J4.49, J1.0) destroyed at 10 / 6 points
        return max(0, ft.craft_destroyed_at[u] - a.damage[b, u])
    if kind != K_SHIP and kind != K_FREIGHTER:
        raise NotImplementedError("compiled ESG: only ships, freighters and drones meet fields")
    if ft.fr_destroyed_at[u] < damage._BIG:  # a freighter's sheet (R1.6)
        return a.shields[b, u, 0] + max(0, ft.fr_destroyed_at[u] - a.internal[b, u])
    if ft.damage_rule == damage.RULE_NONE:
        return SHIP_NEEDS
    left = 0
    for k in range(a.boxes.shape[2]):
        left += a.boxes[b, u, k]
    for k in range(ft.unit_n_weapons[u]):
        if not a.w_destroyed[b, ft.unit_weapons[u, k]]:
            left += 1
    return (a.shields[b, u, shield - 1] if shield else 0) + left


@kernel(_nrt=False, error_model="numpy")
def resolve_contacts_a(p, b):
    """``esg_field.resolve_contacts`` for the battle's one ship with generators (its one or
    two fields, G23.122): each unit in play (not the owner, not a plasma torpedo, G23.81)
    whose distance from the generating ship this impulse's moves take onto a ring
    (``field_entry``) strikes that operating field; its struck shield and the points that
    would destroy it are judged once, on the entry into the first field in row order; then
    the fields, in the G23.122 order (``esg.interaction_order``: the larger radius first, then
    the one operating longer, then row order), each score on their contacts in the G23.52
    order (jumpers first, then smallest first, a die breaking ties among several struck
    units) until their strength is spent (G23.511; a unit damaged by one field needs less from
    the next); each unit's points are one volley on its struck shield (G23.512, G23.513:
    ``EsgStruck``, then the damage); a field brought to zero is dropped (G23.322)."""
    a, g, side, ft, et = handle.deref(p)  # pinned (``contacts_args``)
    n_g = et.rows.shape[0]
    if n_g == 0:
        return
    owner = a.w_owner[b, et.rows[0]]
    if a.status[b, owner] != ACTIVE:
        return
    ipt = et.ipt
    now = (a.turn[b] - 1) * ipt + a.impulse[b]
    n_u = a.kind.shape[1]
    work = et.work
    c_unit = work[:n_u]
    c_entry = work[n_u:2 * n_u]  # the entry into the first field met (row order)
    c_size = work[2 * n_u:3 * n_u]
    c_shield = work[3 * n_u:4 * n_u]
    c_left = work[4 * n_u:5 * n_u]
    c_tie = work[5 * n_u:6 * n_u]
    c_scored = work[6 * n_u:7 * n_u]
    c_order = work[7 * n_u:8 * n_u]
    c_total = work[8 * n_u:9 * n_u]  # the volley of all the ship's fields
    f_entry = work[9 * n_u:]  # (n_g, n_u) each field's entry per contact, E_NONE none
    any_live = False
    for i in range(n_g):
        w = et.rows[i]
        act = g.esg_activated_at[b, w]
        # esg.is_operating (G23.32, G23.51): not in the impulse of its release
        if (g.esg_phase[b, w] == OPERATING and not a.w_destroyed[b, w]
                and act < now <= act + ipt and g.esg_strength[b, w] > 0):
            any_live = True
    if not any_live:
        return
    xo, zo, pxo, pzo = a.x[b, owner], a.z[b, owner], a.prev_x[b, owner], a.prev_z[b, owner]
    ship_moved = xo != pxo or zo != pzo
    nc = 0
    for u in range(n_u):  # in row order (``np.flatnonzero``; ``sorted(entries)``)
        ku = a.kind[b, u]
        if u == owner or a.status[b, u] != ACTIVE or ku == K_PLASMA:  # (G23.81)
            continue
        xu, zu, pxu, pzu = a.x[b, u], a.z[b, u], a.prev_x[b, u], a.prev_z[b, u]
        unit_moved = xu != pxu or zu != pzu
        if not (unit_moved or ship_moved):
            continue
        before = shields.distance(pxo, pzo, pxu, pzu)
        after = shields.distance(xo, zo, xu, zu)
        # (C1.3, G23.571) who moved first when both did: ships before seeking weapons, and
        # among ships the slower first; equal speeds at the same time (no middle distance)
        middle, unit_first = -1, False
        if ship_moved and unit_moved:
            is_ship = ku in (K_SHIP, K_FREIGHTER)
            if is_ship and a.speed[b, u] < a.speed[b, owner]:
                unit_first = True
                middle = shields.distance(pxo, pzo, xu, zu)
            elif not is_ship or a.speed[b, u] > a.speed[b, owner]:
                middle = shields.distance(xo, zo, pxu, pzu)
        # (G23.72) PROPOSAL [P-078]: a zero-radius field holds the friendly units in its hex
        inside = before == 0 and side[b, u] == side[b, owner]
        first = E_NONE
        for i in range(n_g):
            w = et.rows[i]
            f_entry[i * n_u + nc] = E_NONE
            act = g.esg_activated_at[b, w]
            if not (g.esg_phase[b, w] == OPERATING and not a.w_destroyed[b, w]
                    and act < now <= act + ipt and g.esg_strength[b, w] > 0):
                continue
            r = g.esg_radius[b, w]
            if not ((before - r) * (after - r) <= 0 or middle == r):
                continue  # the distance never reaches the ring
            entry = field_entry(r, before, after, ship_moved, unit_moved, inside, middle,
                                unit_first)
            f_entry[i * n_u + nc] = entry
            if first == E_NONE:
                first = entry
        if first == E_NONE:
            continue
        if ku in (K_DRONE, K_TARGET_DRONE):  # (G23.52 step 5) size ranks
            size = SIZE_DRONE
        elif ku == K_FREIGHTER:
            size = SIZE_FREIGHTER
        elif ku == K_SHIP:
            size = SIZE_SHIP
        elif ku in (K_FIGHTER, K_SHUTTLE):  # (G23.515)
            size = SIZE_SHUTTLE
        else:
            raise NotImplementedError("compiled ESG: a planet or monster meets a field "
                                      "(G23.65)")
        c_unit[nc], c_entry[nc], c_size[nc] = u, first, size
        nc += 1
    if nc == 0:
        return
    for k in range(nc):  # the struck shields first (an exact boundary may log one)
        c_shield[k] = struck_shield(a, ft, b, c_unit[k], owner, c_entry[k], ship_moved)
    for k in range(nc):
        c_left[k] = needed(a, ft, b, c_unit[k], c_shield[k])
        c_total[k] = 0
        c_tie[k] = 0
    if nc > 1:  # (G23.52 step 5) a die breaks ties of size, one per struck unit in row order
        for k in range(nc):
            c_tie[k] = dice_mod.die(a.dice, b)
    done = 0  # the fields resolved, as bits of their index (G23.122's order)
    for _ in range(n_g):
        pick = -1  # (esg.interaction_order) larger radius, earlier activation, row order
        for i in range(n_g):
            w = et.rows[i]
            if (done >> i) & 1 or g.esg_phase[b, w] != OPERATING:
                continue
            if pick < 0:
                pick = i
                continue
            p = et.rows[pick]
            if (g.esg_radius[b, w] > g.esg_radius[b, p]
                    or (g.esg_radius[b, w] == g.esg_radius[b, p]
                        and g.esg_activated_at[b, w] < g.esg_activated_at[b, p])):
                pick = i
        if pick < 0:
            break
        done |= 1 << pick
        _strike_field(g, et, b, et.rows[pick], f_entry[pick * n_u:(pick + 1) * n_u], nc,
                      c_size, c_tie, c_left, c_scored, c_total, c_order, now)
    for k in range(nc):  # units in row order: the event, then the volley (G23.512)
        u = c_unit[k]
        points = c_total[k]
        rr = event_codes.begin(a.ev, a.ev_count, b, ESG_STRUCK, a.turn[b], a.impulse[b])
        a.ev[b, rr, 3] = owner
        a.ev[b, rr, 4] = u
        a.ev[b, rr, 5] = CONTACT_WORD[c_entry[k]]
        a.ev[b, rr, 6] = points
        a.ev[b, rr, 7] = c_shield[k]
        if points:
            damage.apply_damage_a(a, ft, b, u, c_shield[k], points)
            g.esg_struck_at[b, u] = now  # (G23.621) lock-on this impulse
    for i in range(n_g):  # (G23.322) the fields this impulse exhausted, in row order
        w = et.rows[i]
        if (done >> i) & 1 and g.esg_phase[b, w] != OPERATING:
            rr = _event(a.ev, a.ev_count, b, ESG_DROPPED, a.turn[b], a.impulse[b], owner, w)
            a.ev[b, rr, 5] = EXHAUSTED


@nb.njit(cache=True, inline="always")
def _strike_field(g, et, b, w, entry, nc, c_size, c_tie, c_left, c_scored, c_total, c_order,
                  now):
    """``esg.resolve_field`` for field ``w`` against the contacts ``k`` with
    ``entry[k] != E_NONE`` (G23.511, G23.52): jumpers first (step 1), then the rest, smallest
    first, then the tie die, row order last (the reference's stable sort: an insertion sort
    over the keys); units of one step share the points one at a time until the field is
    spent; ``c_left`` (what each unit still needs) and ``c_total`` (its volley) take the
    points scored; a field brought to zero is deactivated (G23.322)."""
    n = 0
    for k in range(nc):
        c_scored[k] = 0
        if entry[k] == E_NONE:
            continue
        key = (0 if entry[k] == E_JUMPS else 1) * 100 + c_size[k] * 10 + c_tie[k]
        j = n
        while j > 0:
            p = c_order[j - 1]
            if (0 if entry[p] == E_JUMPS else 1) * 100 + c_size[p] * 10 + c_tie[p] <= key:
                break
            c_order[j] = p
            j -= 1
        c_order[j] = k
        n += 1
    if n == 0:
        return
    strength = g.esg_strength[b, w]
    start = 0
    while start < n and strength > 0:  # one group per step: units share points in turn
        step = entry[c_order[start]] == E_JUMPS
        end = start
        while end < n and (entry[c_order[end]] == E_JUMPS) == step:
            end += 1
        progress = True
        while strength > 0 and progress:  # one point each in turn (G23.52 step 5)
            progress = False
            for j in range(start, end):
                k = c_order[j]
                if strength == 0:
                    break
                if c_left[k] > c_scored[k]:
                    c_scored[k] += 1
                    strength -= 1
                    progress = True
        start = end
    for k in range(nc):
        c_left[k] -= c_scored[k]
        c_total[k] += c_scored[k]
    g.esg_strength[b, w] = strength
    if strength == 0:
        _deactivate(g, b, w, now)


@nb.njit(cache=True, inline="always")
def contacts_args(s, ft, et):
    """``resolve_contacts_a``'s arguments (a batch keeps them
    in a handle: ``procedure.call_args``)."""
    return (damage.fire_view(s), esg_view(s), s.side, ft, et)


@nb.njit(cache=True, inline="always")
def resolve_contacts_pinned(s, p, et, b):
    """The phase entry point: ``resolve_contacts_a`` where the battle's generator has a field,
    or where it has several (G23.122; elsewhere no call), on ``contacts_args`` pinned by the
    caller (``procedure.held_calls``)."""
    if et.rows.shape[0] > 1 or (et.rows.shape[0] > 0
                                and s.esg_phase[b, et.rows[0]] == OPERATING):
        resolve_contacts_a(p, b)
