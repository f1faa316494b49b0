"""Expanding sphere generators in a battle (G23): state arrays, orders, energy and field contact.

The rules are the pure resolver :mod:`sfb_env.engine.esg`; this module keeps each generator's
record in the ``esg_*`` weapon arrays of ``BattleState``, rebuilds an
:class:`~sfb_env.engine.esg.EsgGenerator` from them when a rule is asked and writes the answer
back. ``procedure.py`` calls it at Energy Allocation (:func:`energy_allocation`), Launch Seeking
Weapons (:func:`launch_step`) and Move Ships (:func:`resolve_contacts`).

Entry points: those three, ``order_blockers`` (the one legality predicate of an ``esg[g]``
order: masks and validation), ``init_state``, ``esg_rows``, ``generator``, ``store``.

Rules digest (the rulings where the book is silent, and every numbered rule of G23 with where
it lives): docs/engine/esg_field.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sfb_env import hexmap
from sfb_env.engine import esg, planets, shields
from sfb_env.engine import events as ev
from sfb_env.engine.energy_form import charged
from sfb_env.engine.esg import (
    Contact,
    ContactKind,
    ContactSize,
    Entry,
    EsgGenerator,
    EsgPhase,
    EsgRuleError,
)
from sfb_env.engine.small_craft import CRAFT
from sfb_env.engine.types import (
    ACTIVE,
    K_DRONE,
    K_FIGHTER,
    K_FREIGHTER,
    K_PLANET,
    K_PLASMA,
    K_SHIP,
    K_SHUTTLE,
    K_TARGET_DRONE,
    NEVER,
    EsgOrder,
)

if TYPE_CHECKING:
    from sfb_env.engine.battle import Battle

SHIP_NEEDS = 10**6  # a ship that cannot be damaged (scenario 1) soaks a whole field
ANNOUNCE_ORDERS = (EsgOrder.ANNOUNCE_0, EsgOrder.ANNOUNCE_1, EsgOrder.ANNOUNCE_2,
                   EsgOrder.ANNOUNCE_3)
_IDLE, _ANNOUNCED, _ACTIVE_PHASE = (int(p) for p in EsgPhase)
_CONTACT_NAMES = {Entry.ENTERS: "enters", Entry.ENTERS_FROM_INSIDE: "from_inside",
                  Entry.JUMPS: "jumps"}
_SIZES = {K_DRONE: ContactSize.DRONE, K_TARGET_DRONE: ContactSize.DRONE,
          K_FREIGHTER: ContactSize.FREIGHTER, K_SHIP: ContactSize.SHIP,
          K_FIGHTER: ContactSize.SHUTTLE, K_SHUTTLE: ContactSize.SHUTTLE}  # (G23.52 step 5)


# ---------------------------------------------------------------------- state <-> resolver


def init_state(battle: Battle, capacity: list[int], start: list[int]) -> None:
    """Fill the ``esg_*`` arrays: ``capacity`` and ``start`` charge per weapon row (G23.23)."""
    st = battle.state
    m = len(capacity)
    st.esg_max = np.array(capacity, dtype=np.int64).reshape(m)
    st.esg_stored = np.array(start, dtype=np.int64).reshape(m)
    st.esg_phase = np.zeros(m, dtype=np.int8)
    st.esg_radius = np.full(m, -1, dtype=np.int64)
    st.esg_strength = np.zeros(m, dtype=np.int64)
    for name in ("announced_at", "release_at", "activated_at", "dropped_at", "cancelled_at"):
        setattr(st, f"esg_{name}", np.full(m, NEVER, dtype=np.int64))


def esg_rows(battle: Battle) -> np.ndarray:
    """Weapon rows that are expanding sphere generators (in use in the scenario)."""
    st = battle.state
    return np.flatnonzero((st.esg_max > 0) & st.w_enabled)


def _time(value) -> int | None:
    return None if value == NEVER else int(value)


def generator(battle: Battle, w: int) -> EsgGenerator:
    """Generator ``w`` as the G23 resolver's record."""
    st = battle.state
    radius = int(st.esg_radius[w])
    return EsgGenerator(
        max_energy=int(st.esg_max[w]), impulses_per_turn=st.impulses_per_turn,
        stored=int(st.esg_stored[w]), phase=EsgPhase(int(st.esg_phase[w])),
        radius=None if radius < 0 else radius, strength=int(st.esg_strength[w]),
        announced_at=_time(st.esg_announced_at[w]), release_at=_time(st.esg_release_at[w]),
        activated_at=_time(st.esg_activated_at[w]), dropped_at=_time(st.esg_dropped_at[w]),
        cancelled_at=_time(st.esg_cancelled_at[w]),
    )


def store(battle: Battle, w: int, gen: EsgGenerator) -> None:
    """Write a resolver record back into the arrays."""
    st = battle.state
    st.esg_stored[w] = gen.stored
    st.esg_phase[w] = int(gen.phase)
    st.esg_radius[w] = -1 if gen.radius is None else gen.radius
    st.esg_strength[w] = gen.strength
    for name in ("announced_at", "release_at", "activated_at", "dropped_at", "cancelled_at"):
        value = getattr(gen, name)
        getattr(st, f"esg_{name}")[w] = NEVER if value is None else value


# ---------------------------------------------------------------------- legality


def order_blockers(battle: Battle, w: int) -> dict[int, str]:
    """ESG order values 1..6 (``EsgOrder``) that generator ``w`` may not be given now, with
    the rule; 0 (no order) is always allowed."""
    st = battle.state
    closed: str | None = None
    if w < 0 or w >= len(st.esg_max) or st.esg_max[w] <= 0:
        closed = "G23.11 not an expanding sphere generator"
    elif not st.w_enabled[w]:
        closed = "scenario weapons_allowed: this ESG is not in use"
    elif st.w_destroyed[w]:
        closed = "G23.14 the generator is destroyed"
    elif st.impulse < 1:
        closed = "G23.31 ESG orders are given in Launch Seeking Weapons (impulses 1 and later)"
    elif not (battle.rules.seeking_weapons
              and battle.rules.launch_seeking_weapons):
        closed = "B2.0 this scenario skips Launch Seeking Weapons, where ESG orders are given"
    if closed is not None:
        return {int(v): closed for v in EsgOrder if v != EsgOrder.NONE}
    gen = generator(battle, w)
    out: dict[int, str] = {}
    ok, why = esg.can_announce(gen, st.turn, st.impulse)
    if not ok:
        out.update({int(v): why for v in ANNOUNCE_ORDERS})
    ok, why = esg.can_cancel(gen, st.turn, st.impulse)
    if not ok:
        out[int(EsgOrder.CANCEL)] = why
    ok, why = esg.can_drop(gen, st.turn, st.impulse)
    if not ok:
        out[int(EsgOrder.DROP)] = why
    return out


# ---------------------------------------------------------------------- Energy Allocation


def energy_allocation(battle: Battle) -> None:
    """Chief Engineer: top every working generator up to its capacity (G23.21, G23.22,
    SCENARIOS §2.1; see docs/engine/esg_field.md)."""
    st = battle.state
    if not battle.rules.chief_engineer:
        return
    for w in esg_rows(battle):
        w = int(w)
        owner = int(st.w_owner[w])
        if st.w_destroyed[w] or st.status[owner] != ACTIVE:
            continue
        energy = int(st.esg_max[w] - st.esg_stored[w])
        if energy > 0:
            store(battle, w, esg.charge(generator(battle, w), energy))
            battle.log(ev.EsgCharged(st.turn, 0, battle.unit_ids[owner], battle.weapon_ids[w],
                                     energy, int(st.esg_stored[w])))


# ---------------------------------------------------------------------- Launch Seeking Weapons


def reserve_step(battle: Battle, orders: dict) -> None:
    """Reserve power into the generators (G23.212, H7.1): each ``Orders.esg_reserve`` entry
    discharges batteries into its generator (stored for the next release, never the active
    field), in weapon-row order, each trimmed to the room and to the batteries left [P-083]."""
    st = battle.state
    for u, order in orders.items():
        for w, energy in sorted(order.esg_reserve.items()):
            have = charged(battle, u)
            k = min(int(energy), int(st.esg_max[w] - st.esg_stored[w]), have)
            if k <= 0 or st.w_destroyed[w]:
                continue
            store(battle, w, esg.charge(generator(battle, w), k))
            st.batteries[u] = have - k
            uid = battle.unit_ids[u]
            battle.log(ev.ReserveDischarged(st.turn, st.impulse, uid,
                                            f"esg:{battle.weapon_ids[w]}", k, have - k))
            battle.log(ev.EsgCharged(st.turn, st.impulse, uid, battle.weapon_ids[w], k,
                                     int(st.esg_stored[w])))



def launch_step(battle: Battle, orders: dict) -> None:
    """The ESG part of Launch Seeking Weapons: drops, expiry and release, cancellations and
    announcements, in that order (G23.711 deactivations before activations)."""
    st = battle.state
    turn, imp = st.turn, st.impulse
    now = st.absolute_impulse
    released: list[int] = []
    for w in esg_rows(battle):
        w = int(w)
        owner = int(st.w_owner[w])
        uid, gid = battle.unit_ids[owner], battle.weapon_ids[w]
        order = orders.get(owner)
        value = int(order.esg.get(w, 0)) if order is not None else 0
        gen = generator(battle, w)
        if st.w_destroyed[w] or st.status[owner] != ACTIVE:
            if gen.phase != EsgPhase.IDLE:  # the box is gone: no field, no announcement
                store(battle, w, EsgGenerator(gen.max_energy, gen.impulses_per_turn,
                                              dropped_at=now, activated_at=gen.activated_at))
                battle.log(ev.EsgDropped(turn, imp, uid, gid, "destroyed"))
            continue
        if value == EsgOrder.DROP:
            gen = esg.drop(gen, turn, imp)  # (G23.47) at once
            battle.log(ev.EsgDropped(turn, imp, uid, gid, "voluntary"))
        before = gen
        gen = esg.launch_step(gen, turn, imp)
        if before.phase == EsgPhase.ACTIVE and gen.phase != EsgPhase.ACTIVE:
            battle.log(ev.EsgDropped(turn, imp, uid, gid, "expired"))  # (G23.32)
        if before.phase == EsgPhase.ANNOUNCED and gen.activated_at == now:
            battle.log(ev.EsgReleased(turn, imp, uid, gid, int(before.radius or 0),
                                      before.stored, gen.strength if gen.phase else 0))
            if gen.phase != EsgPhase.ACTIVE:  # released empty: dropped at once (G23.322)
                battle.log(ev.EsgDropped(turn, imp, uid, gid, "exhausted"))
            else:
                released.append(w)
        if value == EsgOrder.CANCEL:
            gen = esg.cancel(gen, turn, imp)
            battle.log(ev.EsgCancelled(turn, imp, uid, gid))
        elif value in ANNOUNCE_ORDERS:
            gen = esg.announce(gen, value - EsgOrder.ANNOUNCE_0, turn, imp)
            at = gen.release_at - 1
            battle.log(ev.EsgAnnounced(turn, imp, uid, gid, int(gen.radius),
                                       at // st.impulses_per_turn + 1,
                                       at % st.impulses_per_turn + 1))
        store(battle, w, gen)
    if released:
        _release_overlaps(battle, released)


def _release_overlaps(battle: Battle, new: list[int]) -> None:
    """(G23.71-G23.713) Fields ``new`` released in this step that overlap or nest in another
    ship's.

    Runs after every drop and expiry of the step, so a field that ended in this step no longer
    counts (G23.711: deactivations precede activations). A field released next to an older one
    collapses (G23.712); two released together both collapse; ships in one hex with fields of
    the same radius damage each other instead (G23.713, G23.73).
    """
    st = battle.state
    rows = esg_rows(battle)
    live = rows[(st.esg_phase[rows] == _ACTIVE_PHASE) & (st.esg_strength[rows] > 0)]
    if len(np.unique(st.w_owner[live])) < 2:
        return  # (one ship's own fields may overlap freely, G23.121)
    old = [int(w) for w in live if w not in new]
    collapsing: set[int] = set()
    meeting: list[tuple[int, int]] = []
    for i, n in enumerate(new):
        for o in old + new[i + 1:]:
            if st.w_owner[o] == st.w_owner[n]:
                continue
            d = hexmap.distance_np(st.x[st.w_owner[n]], st.z[st.w_owner[n]],
                                   st.x[st.w_owner[o]], st.z[st.w_owner[o]])
            verdict = esg.release_overlap(int(d), int(st.esg_radius[n]), int(st.esg_radius[o]))
            if verdict == esg.Overlap.DAMAGE:
                meeting.append((n, o))
            elif verdict == esg.Overlap.COLLAPSE:
                collapsing.add(n)
                if o in new:  # released in the same step: both fail (G23.712)
                    collapsing.add(o)
    for n in sorted(collapsing):
        store(battle, n, esg.collapse(generator(battle, n), st.turn, st.impulse))
        battle.log(ev.EsgDropped(st.turn, st.impulse, battle.unit_ids[st.w_owner[n]],
                                 battle.weapon_ids[n], "collapsed"))
    for a, b in meeting:
        if a not in collapsing and b not in collapsing:
            _fields_meet(battle, a, b)


def _fields_meet(battle: Battle, a: int, b: int) -> None:
    """(G23.73) Operating fields ``a`` and ``b`` of two ships strike each other."""
    st = battle.state
    ga, gb = generator(battle, a), generator(battle, b)
    if not (ga.strength and gb.strength):
        return
    sa, sb = esg.fields_meet(ga.strength, gb.strength)
    store(battle, a, esg.strike_field(ga, sa, st.turn, st.impulse))
    store(battle, b, esg.strike_field(gb, sb, st.turn, st.impulse))
    ua, ub = battle.unit_ids[st.w_owner[a]], battle.unit_ids[st.w_owner[b]]
    battle.log(ev.EsgFieldsMet(st.turn, st.impulse, ua, battle.weapon_ids[a], ub,
                               battle.weapon_ids[b], ga.strength - sa))
    for w, uid, left in ((a, ua, sa), (b, ub, sb)):
        if not left:
            battle.log(ev.EsgDropped(st.turn, st.impulse, uid, battle.weapon_ids[w],
                                     "exhausted"))  # (G23.322)


# ---------------------------------------------------------------------- contact (Move Ships)


def resolve_contacts(battle: Battle) -> None:
    """Fields against the units that entered them in this impulse's movement (G23.51-G23.574).

    One volley per ship's fields for each unit struck (G23.512), on the shield facing the
    generating ship (G23.513), after tactical maneuvers (G23.514).
    """
    st = battle.state
    rows = esg_rows(battle)
    if not len(rows):
        return
    active = rows[st.esg_phase[rows] == _ACTIVE_PHASE]
    if not len(active):
        return
    owners = np.unique(st.w_owner[active])
    if len(owners) > 1:
        _moving_fields_meet(battle, active)
    for owner in owners:
        owner = int(owner)
        if st.status[owner] != ACTIVE:
            continue
        gens_rows = [int(w) for w in rows if st.w_owner[w] == owner]
        _ship_fields(battle, owner, gens_rows)


def _moving_fields_meet(battle: Battle, active: np.ndarray) -> None:
    """(G23.73, G23.52 step 2) Fields of different ships that this impulse's moves bring onto a
    common hex strike each other, before any unit strikes either field.

    No two ships' operating fields ever share a hex at the start of an impulse (G23.71 at
    release, and a meeting leaves at most one of them), so they meet when the ships' distance
    falls to the sum of the radii. PROPOSAL [P-081] (C1.3, as G23.571 for units): if one ship moved
    before the other (slower first), the distance after its move alone counts too.
    """
    st = battle.state
    live = [int(w) for w in active
            if st.status[st.w_owner[w]] == ACTIVE and not st.w_destroyed[w]
            and esg.is_operating(generator(battle, int(w)), st.turn, st.impulse)]
    for i, a in enumerate(live):
        for b in live[i + 1:]:
            oa, ob = int(st.w_owner[a]), int(st.w_owner[b])
            if oa == ob or not (st.esg_strength[a] and st.esg_strength[b]):
                continue
            reach = int(st.esg_radius[a] + st.esg_radius[b])
            d = int(hexmap.distance_np(st.x[oa], st.z[oa], st.x[ob], st.z[ob]))
            if d > reach and st.speed[oa] != st.speed[ob]:
                first, second = (oa, ob) if st.speed[oa] < st.speed[ob] else (ob, oa)
                d = min(d, int(hexmap.distance_np(st.x[first], st.z[first],
                                                  st.prev_x[second], st.prev_z[second])))
            if d <= reach:
                _fields_meet(battle, a, b)


def _ship_fields(battle: Battle, owner: int, rows: list[int]) -> None:
    st = battle.state
    gens = [generator(battle, w) for w in rows]
    live = [esg.is_operating(g, st.turn, st.impulse) and not st.w_destroyed[w]
            for g, w in zip(gens, rows, strict=True)]
    if not any(live):
        return
    others = np.flatnonzero((st.status == ACTIVE) & (np.arange(len(st.kind)) != owner)
                            & (st.kind != K_PLASMA))  # (G23.81) plasma is immune to the ESG
    if battle.rules.planets_in_play:  # (G23.515) no ESG damage to shuttles landed on a planet
        others = others[~planets.landed(battle)[others]]
    if not len(others):
        return
    before = hexmap.distance_np(st.prev_x[owner], st.prev_z[owner], st.prev_x[others],
                                st.prev_z[others])
    after = hexmap.distance_np(st.x[owner], st.z[owner], st.x[others], st.z[others])
    ship_moved = bool(st.x[owner] != st.prev_x[owner] or st.z[owner] != st.prev_z[owner])
    unit_moved = (st.x[others] != st.prev_x[others]) | (st.z[others] != st.prev_z[others])
    # (C1.3, G23.571) who moved first when both did: ships before seeking weapons, and among
    # ships the slower first; equal speeds move at the same time (no middle distance)
    middle = np.full(len(others), -1, dtype=np.int64)
    unit_first = np.zeros(len(others), dtype=bool)
    if ship_moved and unit_moved.any():
        is_ship = (st.kind[others] == K_SHIP) | (st.kind[others] == K_FREIGHTER)
        unit_first = unit_moved & is_ship & (st.speed[others] < st.speed[owner])
        ship_first = unit_moved & (~is_ship | (st.speed[others] > st.speed[owner]))
        middle = np.where(unit_first, hexmap.distance_np(
            st.prev_x[owner], st.prev_z[owner], st.x[others], st.z[others]), middle)
        middle = np.where(ship_first, hexmap.distance_np(
            st.x[owner], st.z[owner], st.prev_x[others], st.prev_z[others]), middle)
    # (G23.72) PROPOSAL [P-078]: a zero-radius field holds every friendly unit in the ship's hex
    # when it forms; any other unit reaching the hex strikes it (and is destroyed or collapses
    # it), so the friendly units in the hex at the start of an impulse are exactly those
    # designated, the same for both fields of one ship (G23.722)
    inside = (before == 0) & (st.side[others] == st.side[owner])
    contacts: list[list[Contact]] = [[] for _ in gens]
    entries: dict[int, Entry] = {}
    for i, (gen, ok) in enumerate(zip(gens, live, strict=True)):
        if not ok:
            continue
        r = int(gen.radius)
        # only a unit whose distance reaches the ring can meet it (a cheap filter)
        near = (((before - r) * (after - r) <= 0) | (middle == r)) & (unit_moved | ship_moved)
        for j in np.flatnonzero(near):
            u = int(others[j])
            mid = int(middle[j])
            entry = esg.field_entry(r, int(before[j]), int(after[j]), ship_moved=ship_moved,
                                    unit_moved=bool(unit_moved[j]), inside=bool(inside[j]),
                                    middle=None if mid < 0 else mid,
                                    unit_first=bool(unit_first[j]))
            if entry == Entry.NONE:
                continue
            entries.setdefault(u, entry)
            if st.kind[u] == K_PLANET:  # (G23.65, G23.52 step 3) the field collapses to 0
                contacts[i].append(Contact(unit=u, needed=0, kind=ContactKind.PLANET))
                continue
            contacts[i].append(Contact(unit=u, needed=0, size=_SIZES[int(st.kind[u])],
                                       jumper=entry == Entry.JUMPS))
    if not any(contacts):
        return
    struck = sorted(entries)
    shield_of = {u: _struck_shield(battle, u, owner, entries[u], ship_moved) for u in struck}
    needed = {u: _needed(battle, u, shield_of[u]) for u in struck}
    # (G23.52 step 5) a die breaks ties of size among units striking one field together
    ties = {u: int(battle.rng.integers(1, 7)) for u in struck} if len(struck) > 1 else {}
    contacts = [[Contact(c.unit, needed[c.unit], c.kind, c.size, c.jumper, ties.get(c.unit, 0))
                 for c in group] for group in contacts]
    try:
        new_gens, volley = esg.strike(gens, contacts, st.turn, st.impulse)
    except EsgRuleError as err:  # an engine bug, not a player's order: say which rule broke
        raise RuntimeError(f"ESG contact resolution failed: {err}") from err
    uid = battle.unit_ids[owner]
    for u in struck:
        points = volley.get(u, 0)
        battle.log(ev.EsgStruck(st.turn, st.impulse, uid, battle.unit_ids[u],
                                _CONTACT_NAMES[entries[u]], points, shield_of[u]))
        if points:
            battle.apply_damage(u, shield_of[u], points)
            st.esg_struck_at[u] = st.absolute_impulse  # (G23.621) lock-on this impulse
    for w, old, new in zip(rows, gens, new_gens, strict=True):
        store(battle, w, new)
        if old.phase == EsgPhase.ACTIVE and new.phase != EsgPhase.ACTIVE:
            battle.log(ev.EsgDropped(st.turn, st.impulse, uid, battle.weapon_ids[w],
                                     "exhausted"))  # (G23.322)


def _needed(battle: Battle, u: int, shield: int) -> int:
    """(G23.511) Damage points that would still destroy unit ``u`` struck on ``shield``."""
    st = battle.state
    kind = int(st.kind[u])
    if kind in (K_DRONE, K_TARGET_DRONE):
        return max(0, int(battle.rules.drone_strength) - int(st.damage[u]))
    if kind in (K_FIGHTER, K_SHUTTLE):  # (J4.49, J1.0) destroyed at 10 / 6 points
        return max(0, CRAFT[kind].destroyed_at - int(st.damage[u]))
    ship = battle.ship_classes[u]
    if ship is not None and ship.freighter is not None:
        return int(st.shields[u, 0]) + max(0, ship.freighter.destroyed_at - int(st.internal[u]))
    if battle.rules.damage == "none":
        return SHIP_NEEDS
    weapons = battle.weapons_of(u)
    left = int(st.boxes[u].sum()) + int((~st.w_destroyed[weapons]).sum())
    return (int(st.shields[u, shield - 1]) if shield else 0) + left


def _direction(x0, z0, x1, z1) -> int | None:
    """Direction 0..5 of the step from (x0, z0) to the adjacent (x1, z1), None if not a step."""
    d = hexmap.DIR_TO_AXIAL
    match = np.flatnonzero((d[:, 0] == x1 - x0) & (d[:, 1] == z1 - z0))
    return int(match[0]) if len(match) else None


def _struck_shield(battle: Battle, u: int, owner: int, entry: Entry, ship_moved: bool) -> int:
    """(G23.513) The shield of ``u`` facing the generating ship, judged as direct fire (D3.4);
    from inside, the opposite one (G23.5131). On an exact boundary, the shield that faced the
    field hex entered: the hex the unit moved into if it moved first (C1.3: slower first), else
    the field hex that the generating ship's move brought onto it (both at once: as if the
    unit moved first)."""
    if not shields.has_facing_shields(battle, u):
        return 0
    st = battle.state
    if st.x[u] == st.x[owner] and st.z[u] == st.z[owner]:
        shield = shields.struck_shield(battle, u, owner, range0=True)  # zero radius (D3.42)
    else:
        hit = np.flatnonzero(hexmap.shields_hit_mask_np(st.x[u], st.z[u], st.facing[u],
                                                        st.x[owner], st.z[owner]))
        shield = int(hit[0]) + 1
        if len(hit) == 2:
            unit_dir = _direction(st.prev_x[u], st.prev_z[u], st.x[u], st.z[u])
            ship_dir = _direction(st.prev_x[owner], st.prev_z[owner], st.x[owner], st.z[owner])
            unit_first = unit_dir is not None and (
                not ship_moved or int(st.speed[u]) <= int(st.speed[owner]))
            if unit_first:
                faced = unit_dir  # the hex it entered lay ahead of its move
            elif ship_dir is not None:
                faced = (ship_dir + 3) % 6  # the field hex came from behind the ship's move
            else:
                faced = None
            if faced is None:
                shield = shields.shield_from(battle, u, st.x[u], st.z[u], st.facing[u],
                                             st.x[owner], st.z[owner], source=owner)
            else:
                want = (faced - int(st.facing[u])) % 6  # shield index facing that hex
                gap = [min((k - want) % 6, (want - k) % 6) for k in hit]
                shield = int(hit[int(np.argmin(gap))]) + 1
    if entry == Entry.ENTERS_FROM_INSIDE:
        shield = (shield + 2) % 6 + 1  # the opposite shield (G23.5131)
    return shield
